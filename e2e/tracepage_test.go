package e2e

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/ollamatest"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
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

	// An error trace: a request the gateway refuses (tool_choice naming a
	// tool it does not offer) has a page too, with its status and error.
	body := `{"model":"` + srv.ToolCall + `","messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"function","function":{"name":"nope"}},` +
		`"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}`
	bad, err := http.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	bad.Body.Close()
	if bad.StatusCode != 400 {
		t.Fatalf("the refused request: status %d", bad.StatusCode)
	}
	errPage := base + "/dragoman/requests/" + bad.Header.Get("X-Dragoman-Request-Id")
	dom = headless(t, bin, errPage, "--dump-dom")
	for _, want := range []string{`id="error"`, "400", "nope", "the request failed before rendering"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the error trace's DOM lacks %q", want)
		}
	}
	errShot := filepath.Join(dir, "dragoman-trace-error.png")
	headless(t, bin, errPage, "--screenshot="+errShot, "--window-size=1400,1000", "--hide-scrollbars")
	t.Logf("screenshot of an error trace: %s", errShot)
}

// The trace pages of a gateway with a client key, in a real browser driven
// as a user would: the list opens on the login form (401), the key typed
// into it and sent with Enter (the page's CSP must let the form post) sets
// an HttpOnly, SameSite=Strict cookie and lands on the list, which shows
// the request's status; the request's page then shows the client's request,
// its status and the prompt's make-up as a bar. A screenshot is saved.
func TestTracePagesLoginInBrowser(t *testing.T) {
	bin := chromium(t)
	srv := ollamatest.Shared(t)
	const key = "e2e-trace-key"
	base := startGateway(t, "ollama="+srv.URL, "own", "OLLAMA_MODELS="+filepath.Join(srv.Dir, "models"), "DRAGOMAN_API_KEY="+key)
	cl := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0))
	resp, err := cl.Chat.Completions.New(context.Background(), weatherParams(srv.ToolCall))
	if err != nil {
		t.Fatal(err)
	}
	id := resp.ID

	b := startBrowser(t, bin)
	if status := b.open(base + "/dragoman/"); status != 401 {
		t.Fatalf("the list without the key: status %d\n%s", status, b.dom())
	}
	if dom := b.dom(); !strings.Contains(dom, `action="/dragoman/login"`) {
		t.Fatalf("no login form:\n%s", dom)
	}
	b.typeInto("#key", key)
	b.pressEnter()
	status, ok := b.loaded(20 * time.Second)
	if !ok {
		t.Fatal("the login form was not sent: no page loaded in 20 s after Enter (does the login page's CSP allow the form, form-action 'self'?)")
	}
	if status != 200 || b.url() != base+"/dragoman/" {
		t.Fatalf("after the login: status %d at %s\n%s", status, b.url(), b.dom())
	}
	list := b.dom()
	if !strings.Contains(list, `<tr id="row-`+id+`" class="">`) || !strings.Contains(list, `<td class="status" title="200 OK">200</td>`) {
		t.Errorf("the list lacks the request and its status:\n%s", list)
	}
	var found bool
	for _, c := range b.cookies(base + "/dragoman/") {
		if c.Name == "dragoman_trace" {
			found = true
			if !c.HTTPOnly || c.SameSite != "Strict" || c.Secure || strings.Contains(c.Value, key) {
				t.Errorf("cookie %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("no trace cookie: %+v", b.cookies(base+"/dragoman/"))
	}

	if status := b.open(base + "/dragoman/requests/" + id); status != 200 {
		t.Fatalf("the request's page: status %d", status)
	}
	dom := b.dom()
	for _, want := range []string{`<p id="status" class="ok">200 OK</p>`, `<pre id="request">{`, `"messages": [`, `"get_weather"`,
		`<h2 id="prompt-heading">Prompt (rendered by Dragoman)</h2>`, `<pre id="prompt">`, `<pre id="completion">&lt;tool_call&gt;`,
		`<div id="makeup-bar" class="bar">`, `class="seg k-message r-user"`, `class="seg k-tool"`, `<table id="makeup">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the request's page lacks %s", want)
		}
	}
	// The bar as laid out: its segments fill it, in proportion to their
	// tokens.
	var layout struct{ Result struct{ Value string } }
	b.call("Runtime.evaluate", map[string]any{"returnByValue": true, "expression": `JSON.stringify((() => {
		const bar = document.getElementById("makeup-bar"), segs = [...bar.children];
		return {bar: bar.clientWidth, widths: segs.map(s => s.getBoundingClientRect().width), tokens: segs.map(s => +s.dataset.tokens)};
	})())`}, &layout)
	var lay struct {
		Bar    float64
		Widths []float64
		Tokens []float64
	}
	if err := json.Unmarshal([]byte(layout.Result.Value), &lay); err != nil || len(lay.Widths) == 0 {
		t.Fatalf("the bar's layout %q: %v", layout.Result.Value, err)
	}
	sumW, sumT := 0.0, 0.0
	for i := range lay.Widths {
		sumW += lay.Widths[i]
		sumT += lay.Tokens[i]
	}
	if math.Abs(sumW-lay.Bar) > 2 {
		t.Errorf("the segments are %.1f px wide in a %.1f px bar", sumW, lay.Bar)
	}
	for i := range lay.Widths {
		if want := lay.Tokens[i] / sumT * lay.Bar; math.Abs(lay.Widths[i]-want) > 1.5 {
			t.Errorf("segment %d: %.1f px for %v of %v tokens, want %.1f", i, lay.Widths[i], lay.Tokens[i], sumT, want)
		}
	}
	t.Logf("the make-up bar: %d segments, widths %v px of %.0f, tokens %v", len(lay.Widths), lay.Widths, lay.Bar, lay.Tokens)

	dir := os.Getenv("DRAGOMAN_ARTIFACTS")
	if dir == "" {
		dir = os.TempDir()
	}
	shot := filepath.Join(dir, "dragoman-trace-page-login.png")
	b.screenshot(shot)
	if fi, err := os.Stat(shot); err != nil || fi.Size() < 10_000 {
		t.Fatalf("no screenshot at %s (%v)", shot, err)
	}
	t.Logf("screenshot of the request's page: %s", shot)
}
