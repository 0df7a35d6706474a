// Command perfgateway measures Dragoman's gateway (`dragoman serve`) against
// a fast fake Ollama and writes the "## Gateway" section of
// docs/PERFORMANCE.md:
//
//	go run ./scripts/perfgateway -out docs/PERFORMANCE.md [-duration 60s]
//
// The fake upstream runs in this process on 127.0.0.1 and answers at once: a
// fixed hermes-style answer (reasoning, a sentence, a <tool_call>) in -chunks
// NDJSON lines, each flushed, from /api/generate (raw) and /api/chat, with
// /api/tags, /api/show and /api/version. Its model's Jinja template comes from
// a temporary Ollama store (OLLAMA_MODELS) whose blob is the tiny Qwen3 GGUF,
// so the gateway runs in own mode as it would over a real Ollama.
//
// The gateway runs in a child process (this program with -role gateway:
// gateway.New behind an http.Server, as `dragoman serve` builds it, plus
// /_perf/stats for its goroutines), one own-mode and one relay-mode. Then:
//
//   - latency: the same answer asked for directly (Ollama /api/generate or
//     /api/chat, streamed), through a bare streaming proxy (-role proxy, the
//     cost of the extra hop alone) and through the gateway
//     (/v1/chat/completions, streamed), sequentially, the sides taking turns
//     round by round;
//   - throughput: at each of -tclients concurrency levels (8, 32, 256), the
//     gateway (each mode) and the bare proxy (the mode's direct request) in
//     turn, -trounds rounds of -tduration each, medians side by side
//     (-only throughput: this phase alone, printed);
//   - load: -clients concurrent streaming clients for -duration through the
//     own-mode gateway, every answer checked;
//   - idle RSS: the real binary (go build ./cmd/dragoman) started with
//     `serve -no-discover -upstream ollama=<fake>`.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/dragoman-dev/dragoman/scripts/perfdoc"
)

type options struct {
	out      string
	duration time.Duration
	clients  int
	rounds   int
	perRound int
	chunks   int
	gguf     string
	noBinary bool
	profile  string
	memRate  int

	tclients  string        // the throughput phase's concurrency levels
	trounds   int           // its rounds per side and level
	tduration time.Duration // each side's turn in a round
	only      string        // "throughput": that phase alone, printed
}

func main() {
	role := flag.String("role", "", "internal: gateway or proxy (the child processes)")
	upstream := flag.String("upstream", "", "internal: the fake upstream's address, for -role gateway")
	mode := flag.String("mode", "own", "internal: own or relay, for -role gateway")
	cpuProfile := flag.String("cpuprofile", "", "internal: CPU profile file, for -role gateway")
	memRate := flag.Int("memprofilerate", 64<<10, "internal: runtime.MemProfileRate with -cpuprofile, for -role gateway")
	var o options
	shared := os.Getenv("DRAGOMAN_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "shared")
	}
	flag.StringVar(&o.out, "out", "", "markdown file whose \"## Gateway\" section is (re)written; empty: print the section")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long the load runs")
	flag.IntVar(&o.clients, "clients", 256, "concurrent streaming clients under load")
	flag.IntVar(&o.rounds, "rounds", 5, "latency rounds; each side takes its turn once per round")
	flag.IntVar(&o.perRound, "n", 2000, "sequential requests per side per round")
	flag.IntVar(&o.chunks, "chunks", 32, "NDJSON lines in the fake upstream's answer")
	flag.StringVar(&o.gguf, "gguf", filepath.Join(shared, "models", "tiny-qwen3-toolcall.gguf"), "GGUF whose chat template the fake model has")
	flag.StringVar(&o.profile, "gwprofile", "", "write a CPU profile of the own-mode gateway process (latency and load) to this file")
	flag.BoolVar(&o.noBinary, "nobinary", false, "skip building and measuring the dragoman binary's idle RSS")
	flag.IntVar(&o.memRate, "memrate", 64<<10, "runtime.MemProfileRate of the profiled gateway (-gwprofile); 1 records every allocation")
	flag.StringVar(&o.tclients, "tclients", "8,32,256", "the throughput phase's concurrency levels, comma-separated")
	flag.IntVar(&o.trounds, "trounds", 3, "throughput rounds; each side takes one turn per round")
	flag.DurationVar(&o.tduration, "tduration", 3*time.Second, "each side's turn in a throughput round")
	flag.StringVar(&o.only, "only", "", "\"throughput\": run that phase alone (and the first request of each mode) and print it; -out is not written")
	flag.Parse()
	if *role == "proxy" {
		runProxy(*upstream)
		return
	}
	if *role == "gateway" {
		runGateway(*upstream, *mode, *cpuProfile, *memRate)
		return
	}
	if err := drive(o); err != nil {
		fmt.Fprintln(os.Stderr, "perfgateway:", err)
		os.Exit(1)
	}
}

func logf(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }

// makeStore lays out an Ollama model store holding the fake model: its
// manifest, and its model blob as a link to the GGUF.
func makeStore(dir, gguf string) error {
	abs, err := filepath.Abs(gguf)
	if err != nil {
		return err
	}
	f, err := os.Open(abs)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	digest := hex.EncodeToString(h.Sum(nil))
	man := map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
		"layers": []any{map[string]any{"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:" + digest}}}
	b, _ := json.Marshal(man)
	mp := filepath.Join(dir, "manifests", "registry.ollama.ai", "library", "tiny-toolcall", "latest")
	if err := os.MkdirAll(filepath.Dir(mp), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(mp, b, 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "blobs"), 0o755); err != nil {
		return err
	}
	return os.Symlink(abs, filepath.Join(dir, "blobs", "sha256-"+digest))
}

func drive(o options) error {
	if _, err := os.Stat(filepath.Join("cmd", "dragoman")); err != nil {
		return fmt.Errorf("run from the repository root (%v)", err)
	}
	started := time.Now()
	loadStart := perfdoc.LoadAvg()
	tmp, err := os.MkdirTemp("", "perfgateway-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	store := filepath.Join(tmp, "models")
	if err := makeStore(store, o.gguf); err != nil {
		return fmt.Errorf("model store: %w", err)
	}
	fake := newFake(o.chunks)
	if err := fake.start(); err != nil {
		return err
	}
	logf("fake Ollama at %s (%d chunks + done)", fake.addr, len(fake.genLines)-1)

	r := &results{opts: o, started: started, chunks: len(fake.genLines) - 1, answerBytes: len(answer)}

	switch o.only {
	case "", "throughput":
	default:
		return fmt.Errorf("-only %q: want throughput", o.only)
	}
	// The real binary first, while the machine is quiet: idle RSS.
	if !o.noBinary && o.only == "" {
		if err := measureBinary(r, tmp, fake.addr, store); err != nil {
			return fmt.Errorf("binary: %w", err)
		}
	}

	own, err := startGatewayChild("gateway", fake.addr, "own", store, o.profile, o.memRate)
	if err != nil {
		return err
	}
	defer own.stop()
	relay, err := startGatewayChild("gateway", fake.addr, "relay", store, "", 0)
	if err != nil {
		return err
	}
	defer relay.stop()
	proxy, err := startGatewayChild("proxy", fake.addr, "", store, "", 0)
	if err != nil {
		return err
	}
	defer proxy.stop()

	if err := measureLatency(r, fake, own, relay, proxy); err != nil {
		return err
	}
	if err := measureThroughput(r, own, relay, proxy); err != nil {
		return err
	}
	if o.only == "" {
		if err := measureLoad(r, fake, own); err != nil {
			return err
		}
	}
	r.elapsed = time.Since(started)
	r.load = loadStart + " at the start, " + perfdoc.LoadAvg() + " at the end"
	section := report(r)
	if o.out == "" || o.only != "" {
		fmt.Print(section)
		return nil
	}
	if err := perfdoc.WriteSection(o.out, "## Gateway", section); err != nil {
		return err
	}
	logf("perfgateway: wrote %s", o.out)
	return nil
}

// measureBinary builds ./cmd/dragoman and reads its RSS idle, after one
// request, and after a thousand.
func measureBinary(r *results, tmp, upstream, store string) error {
	bin := filepath.Join(tmp, "dragoman")
	build := exec.Command("go", "build", "-o", bin, "./cmd/dragoman")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return err
	}
	if st, err := os.Stat(bin); err == nil {
		r.binSize = st.Size()
	}
	c, err := startBinary(bin, upstream, store)
	if err != nil {
		return err
	}
	defer c.stop()
	// Ready: /healthz answers; then let it settle.
	for range 100 {
		if resp, err := http.Get("http://" + c.addr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	r.binIdle = c.stats(false)
	t := gatewayTarget(c.addr, newClient(1))
	if _, err := t.do(); err != nil {
		return fmt.Errorf("first request through the binary: %w", err)
	}
	time.Sleep(200 * time.Millisecond)
	r.binOne = c.stats(false)
	for range 1000 {
		if _, err := t.do(); err != nil {
			return fmt.Errorf("request through the binary: %w", err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	r.binThousand = c.stats(false)
	logf("binary: RSS %d KiB idle, %d KiB after one request, %d KiB after 1001", r.binIdle.RSSKiB, r.binOne.RSSKiB, r.binThousand.RSSKiB)
	return nil
}
