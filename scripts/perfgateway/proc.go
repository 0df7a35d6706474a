package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/dragoman-dev/dragoman/gateway"
)

// runGateway is the -role gateway child: the gateway as `dragoman serve`
// builds it (gateway.New behind an http.Server), one Ollama upstream, plus
// /_perf/stats for its goroutines and memory. It prints its address and
// serves until its standard input closes.
func runGateway(upstream, mode, profile string, memRate int) {
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "perfgateway:", err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
		runtime.MemProfileRate = max(memRate, 1)
		defer func() { // and the allocations, beside it
			if f, err := os.Create(profile + ".allocs"); err == nil {
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}()
	}
	cfg := gateway.Config{
		Listen: "127.0.0.1:0", NoDiscover: true,
		Upstreams: []gateway.Upstream{{URL: "http://" + upstream, Kind: "ollama", Mode: mode}},
	}
	srv, err := gateway.New(cfg, gateway.Hooks{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfgateway:", err)
		os.Exit(1)
	}
	ln, err := net.Listen("tcp", srv.Config().Listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfgateway:", err)
		os.Exit(1)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_perf/stats" {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(procStats{Goroutines: runtime.NumGoroutine(), HeapInuse: m.HeapInuse, NumGC: m.NumGC,
				Mallocs: m.Mallocs, TotalAlloc: m.TotalAlloc})
			return
		}
		srv.ServeHTTP(w, r)
	})
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	fmt.Printf("LISTEN %s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
}

// runProxy is the -role proxy child: a bare streaming proxy in front of the
// fake, the floor any gateway in its own process pays for the extra hop. Like
// the gateway it reads the request whole before sending it on (forwarding the
// client's body as it arrives races: the server closes that body once the
// response begins, while the transport may still be reading it, and the
// transport then drops the upstream connection mid-answer), and it flushes
// every read of the upstream's body at once.
func runProxy(upstream string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512, IdleConnTimeout: 90 * time.Second}}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_perf/stats" { // its allocations, the floor beside the gateway's
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			json.NewEncoder(w).Encode(procStats{Goroutines: runtime.NumGoroutine(), HeapInuse: m.HeapInuse, NumGC: m.NumGC,
				Mallocs: m.Mallocs, TotalAlloc: m.TotalAlloc})
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, "http://"+upstream+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header.Set("Content-Type", r.Header.Get("Content-Type"))
		resp, err := client.Do(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		fl := w.(http.Flusher)
		buf := make([]byte, 32<<10)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return
				}
				fl.Flush()
			}
			if err != nil {
				return
			}
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfgateway:", err)
		os.Exit(1)
	}
	go (&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
	fmt.Printf("LISTEN %s\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
}

// procStats is what the driver learns of a child: from /_perf/stats
// (goroutines, heap) and /proc (RSS, CPU time).
type procStats struct {
	Goroutines int    `json:"goroutines"`
	HeapInuse  uint64 `json:"heap_inuse"`
	NumGC      uint32 `json:"num_gc"`
	Mallocs    uint64 `json:"mallocs"`
	TotalAlloc uint64 `json:"total_alloc"`
	RSSKiB     int64  `json:"-"`
	HWMKiB     int64  `json:"-"`
	CPU        time.Duration
}

// child is a process the driver started.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string
}

// startGatewayChild runs this program again as -role gateway.
func startGatewayChild(role, upstream, mode, modelsDir, profile string, memRate int) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "-role", role, "-upstream", upstream, "-mode", mode, "-cpuprofile", profile, "-memprofilerate", strconv.Itoa(memRate))
	cmd.Env = append(os.Environ(), "OLLAMA_MODELS="+modelsDir)
	cmd.Stderr = os.Stderr
	c := &child{cmd: cmd}
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		c.stop()
		return nil, fmt.Errorf("gateway child: %v", err)
	}
	c.addr = strings.TrimSpace(strings.TrimPrefix(line, "LISTEN "))
	return c, nil
}

// startBinary starts the real `dragoman serve` and reads its address from
// the line it prints.
func startBinary(bin, upstream, modelsDir string) (*child, error) {
	cmd := exec.Command(bin, "serve", "-no-discover", "-listen", "127.0.0.1:0", "-upstream", "ollama=http://"+upstream)
	cmd.Env = append(os.Environ(), "OLLAMA_MODELS="+modelsDir)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd}
	sc := bufio.NewScanner(errPipe)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), " on http://"); ok {
			c.addr, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	if c.addr == "" {
		c.stop()
		return nil, fmt.Errorf("%s serve printed no address", bin)
	}
	go io.Copy(io.Discard, errPipe)
	return c, nil
}

func (c *child) stop() {
	if c.stdin != nil {
		c.stdin.Close()
	}
	if c.cmd.Process == nil {
		return
	}
	done := make(chan struct{})
	go func() { c.cmd.Wait(); close(done) }()
	if c.stdin == nil {
		c.cmd.Process.Signal(os.Interrupt)
	}
	select {
	case <-done:
		return
	case <-time.After(3 * time.Second):
	}
	c.cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		c.cmd.Process.Kill()
		<-done
	}
}

// stats reads the child's /proc figures and, with withEndpoint, its
// /_perf/stats.
func (c *child) stats(withEndpoint bool) procStats {
	var st procStats
	if withEndpoint {
		if resp, err := http.Get("http://" + c.addr + "/_perf/stats"); err == nil {
			json.NewDecoder(resp.Body).Decode(&st)
			resp.Body.Close()
		}
	}
	st.RSSKiB, st.HWMKiB, st.CPU = procFigures(c.cmd.Process.Pid)
	return st
}

// procFigures reads VmRSS and VmHWM (KiB) from /proc/PID/status and the CPU
// time (user + system) from /proc/PID/stat.
func procFigures(pid int) (rss, hwm int64, cpu time.Duration) {
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
			}
		}
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 13 {
				ut, _ := strconv.ParseInt(f[11], 10, 64)
				stt, _ := strconv.ParseInt(f[12], 10, 64)
				cpu = time.Duration(ut+stt) * time.Second / 100 // USER_HZ is 100 on Linux
			}
		}
	}
	return
}
