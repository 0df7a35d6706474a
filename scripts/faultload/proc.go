package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// buildBinary builds `dragoman` with CGO_ENABLED=0: from the work tree when
// rev is empty, else from `git archive rev` unpacked in tmp (others' work in
// progress in the tree then does not enter the binary). It returns the
// binary and the commit it was built from.
func buildBinary(tmp, rev string) (bin, commit string, err error) {
	bin = filepath.Join(tmp, "dragoman")
	dir := "."
	if rev != "" {
		out, err := exec.Command("git", "rev-parse", "--short=12", rev+"^{commit}").Output()
		if err != nil {
			return "", "", fmt.Errorf("git rev-parse %s: %v", rev, err)
		}
		commit = strings.TrimSpace(string(out))
		dir = filepath.Join(tmp, "src")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", "", err
		}
		sh := exec.Command("sh", "-c", `git archive --format=tar "$1" | tar -x -C "$2"`, "sh", commit, dir)
		sh.Stderr = os.Stderr
		if err := sh.Run(); err != nil {
			return "", "", fmt.Errorf("git archive %s: %v", rev, err)
		}
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/dragoman")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return "", "", fmt.Errorf("go build ./cmd/dragoman in %s: %v", dir, err)
	}
	if commit == "" {
		commit = workTreeCommit()
	}
	return bin, commit, nil
}

func workTreeCommit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// gateway is a running `dragoman serve`.
type gateway struct {
	cmd  *exec.Cmd
	addr string
	mu   sync.Mutex
	errb bytes.Buffer // its standard error after the address line: the goroutine dump at the end
	done chan struct{}
}

// startGateway runs `dragoman serve -config cfg -log-format off` and reads
// its address from the line it prints. GOTRACEBACK=all: SIGQUIT then dumps
// every goroutine but the runtime's own.
func startGateway(bin, cfg, modelsDir, tee string) (*gateway, error) {
	cmd := exec.Command(bin, "serve", "-config", cfg, "-log-format", "off")
	cmd.Env = append(os.Environ(), "OLLAMA_MODELS="+modelsDir, "GOTRACEBACK=all")
	var teeTo io.Writer = io.Discard
	if tee != "" {
		f, err := os.OpenFile(tee, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		teeTo = f
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	g := &gateway{cmd: cmd, done: make(chan struct{})}
	br := bufio.NewReader(errPipe)
	var head strings.Builder
	for {
		line, err := br.ReadString('\n')
		head.WriteString(line)
		if _, rest, ok := strings.Cut(line, " on http://"); ok {
			g.addr, _, _ = strings.Cut(rest, " ")
			break
		}
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("%s serve printed no address:\n%s", bin, head.String())
		}
	}
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := br.Read(buf)
			teeTo.Write(buf[:n])
			g.mu.Lock()
			if g.errb.Len() < 512<<20 {
				g.errb.Write(buf[:n])
			}
			g.mu.Unlock()
			if err != nil {
				break
			}
		}
		cmd.Wait()
		close(g.done)
	}()
	return g, nil
}

// ready waits for /healthz.
func (g *gateway) ready() error {
	for range 200 {
		if resp, err := http.Get("http://" + g.addr + "/healthz"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(25 * time.Millisecond)
	}
	return fmt.Errorf("the gateway at %s does not answer /healthz", g.addr)
}

// exited reports whether the process has ended (a crash under load).
func (g *gateway) exited() bool {
	select {
	case <-g.done:
		return true
	default:
		return false
	}
}

func (g *gateway) stderr() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.errb.String()
}

// quit sends SIGQUIT and returns the goroutine dump the process writes as
// it exits.
func (g *gateway) quit() (string, error) {
	if g.exited() {
		return "", fmt.Errorf("the gateway had already exited: %s", clip(g.stderr(), 2000))
	}
	g.mu.Lock()
	g.errb.Reset()
	g.mu.Unlock()
	g.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-g.done:
	case <-time.After(30 * time.Second):
		g.cmd.Process.Kill()
		<-g.done
		return "", fmt.Errorf("the gateway did not exit on SIGQUIT")
	}
	return g.stderr(), nil
}

func (g *gateway) stop() {
	if g.exited() {
		return
	}
	g.cmd.Process.Signal(os.Interrupt)
	select {
	case <-g.done:
	case <-time.After(10 * time.Second):
		g.cmd.Process.Kill()
		<-g.done
	}
}

// metrics reads /metrics: requests in flight and the counts by API and
// status.
func (g *gateway) metrics(c *http.Client) (inFlight int64, total map[string]int64, err error) {
	resp, err := c.Get("http://" + g.addr + "/metrics")
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	total = map[string]int64{}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "dragoman_requests_in_flight "); ok {
			inFlight, _ = strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
		if m := totalRE.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[3], 10, 64)
			total[m[1]+" "+m[2]] += n
		}
	}
	return inFlight, total, nil
}

var totalRE = regexp.MustCompile(`^dragoman_requests_total\{api="([^"]*)",status="([^"]*)"\} (\d+)`)

// procFigures reads VmRSS, VmHWM (KiB) and Threads from /proc/PID/status,
// and the CPU time from /proc/PID/stat.
func procFigures(pid int) (rss, hwm, threads int64, cpu time.Duration) {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			k, v, _ := strings.Cut(line, ":")
			f := strings.Fields(v)
			if len(f) == 0 {
				continue
			}
			n, _ := strconv.ParseInt(f[0], 10, 64)
			switch k {
			case "VmRSS":
				rss = n
			case "VmHWM":
				hwm = n
			case "Threads":
				threads = n
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 13 {
				ut, _ := strconv.ParseInt(f[11], 10, 64)
				st, _ := strconv.ParseInt(f[12], 10, 64)
				cpu = time.Duration(ut+st) * time.Second / 100 // USER_HZ
			}
		}
	}
	return
}

// goroutine is one goroutine of a dump.
type goroutine struct {
	id    int
	state string
	where string // entry function, and the innermost Dragoman function on its stack
	stack string
}

var headerRE = regexp.MustCompile(`^goroutine (\d+)(?: gp=\S+ m=\S+(?: mp=\S+)?)? \[([^\]]*)\]:$`)

// parseDump reads a SIGQUIT dump's goroutines, leaving out goroutine 0 and
// the runtime's own (whose entry function is in package runtime, as
// runtime.NumGoroutine leaves them out).
func parseDump(dump string) []goroutine {
	var out []goroutine
	blocks := strings.Split("\n"+dump, "\ngoroutine ")
	for _, b := range blocks[1:] {
		lines := strings.Split(strings.TrimRight("goroutine "+b, "\n"), "\n")
		m := headerRE.FindStringSubmatch(lines[0])
		if m == nil {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		if id == 0 {
			continue
		}
		var funcs []string
		for _, l := range lines[1:] {
			if l == "" {
				break // the rest of the dump (registers, another section)
			}
			if strings.HasPrefix(l, "\t") {
				continue
			}
			if strings.HasPrefix(l, "created by ") {
				continue
			}
			funcs = append(funcs, funcName(l))
		}
		funcs = slices.DeleteFunc(funcs, func(f string) bool { return f == "runtime.goexit" })
		if len(funcs) == 0 {
			continue
		}
		entry := funcs[len(funcs)-1]
		if strings.HasPrefix(entry, "runtime.") && entry != "runtime.main" {
			continue
		}
		where := shortFunc(entry)
		for _, f := range funcs {
			if strings.HasPrefix(f, "github.com/dragoman-dev/") && f != entry {
				where += " … " + shortFunc(f)
				break
			}
		}
		state, _, _ := strings.Cut(m[2], ",")
		out = append(out, goroutine{id: id, state: state, where: where, stack: strings.Join(lines, "\n")})
	}
	return out
}

// funcName is a stack line's function without its arguments.
func funcName(l string) string {
	if i := strings.LastIndex(l, "("); i > 0 && strings.HasSuffix(l, ")") {
		return l[:i]
	}
	return l
}

func shortFunc(f string) string {
	return strings.TrimPrefix(f, "github.com/dragoman-dev/dragoman/")
}

// groups counts goroutines by where they are.
func groups(gs []goroutine) map[string]int {
	m := map[string]int{}
	for _, g := range gs {
		m[g.where+" ["+g.state+"]"]++
	}
	return m
}
