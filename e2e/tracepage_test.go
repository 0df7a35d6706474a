package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/ollamatest"
)

// envChromium names the headless browser; default /usr/bin/chromium
// (Debian's package, which .ci/run installs).
const envChromium = "DRAGOMAN_CHROMIUM"

// chromium returns the browser's path, skipping the test without one (or
// failing it under CI=true).
func chromium(t *testing.T) string {
	t.Helper()
	bin := os.Getenv(envChromium)
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := os.Stat(bin); err != nil {
		msg := "no headless browser at " + bin + ": install Debian's chromium (apt-get install chromium) or set " + envChromium
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// headless runs the browser on url with extra flags (--dump-dom,
// --screenshot=…), as the machine's notes say a root sandbox needs it, and
// returns its standard output.
func headless(t *testing.T, bin, url string, flags ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}, flags...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return string(out)
}

// The trace page in a real headless browser: a tool-call request through the
// gateway in front of Ollama, then the page's DOM as Chromium built it shows
// the three fields — the rendered prompt, the raw completion, the parsed call
// — and a screenshot is saved (its path is logged).
func TestTracePageInBrowser(t *testing.T) {
	bin := chromium(t)
	srv := ollamatest.Shared(t)
	base := startDragoman(t, srv, "own")
	cl := client(base)
	resp, err := cl.Chat.Completions.New(context.Background(), weatherParams(srv.ToolCall))
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("no call: %+v", resp.Choices[0].Message)
	}
	page := base + "/dragoman/requests/" + resp.ID
	dom := headless(t, bin, page, "--dump-dom")
	for _, want := range []string{`<pre id="prompt">`, "&lt;|im_start|&gt;assistant", `<pre id="completion">&lt;tool_call&gt;`,
		`<td class="name">get_weather</td>`, "Paris"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page's DOM lacks %q", want)
		}
	}
	list := headless(t, bin, base+"/dragoman/", "--dump-dom")
	if !strings.Contains(list, resp.ID) {
		t.Errorf("the list lacks the request")
	}
	dir := os.Getenv("DRAGOMAN_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	shot := filepath.Join(dir, "dragoman-trace-page.png")
	headless(t, bin, page, "--screenshot="+shot, "--window-size=1400,1000", "--hide-scrollbars")
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Fatalf("no screenshot at %s (%v)", shot, err)
	}
	t.Logf("screenshot of the trace page: %s", shot)
}
