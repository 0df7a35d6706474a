package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// browser is a headless Chromium driven over the DevTools protocol, on the
// pipe Chromium opens with --remote-debugging-pipe (it reads commands from
// its fd 3 and writes answers and events to its fd 4, each message JSON
// ended by a NUL): a page can be opened, typed into and read as a user
// would, with no WebSocket and no library.
type browser struct {
	t       *testing.T
	w       *os.File      // Chromium's fd 3
	rf      *os.File      // Chromium's fd 4
	r       *bufio.Reader // on rf
	id      int
	session string
	events  []cdpMessage // read while waiting for an answer, not yet waited for
}

type cdpMessage struct {
	ID        int             `json:"id,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId,omitempty"`
}

// startBrowser runs Chromium headless with the pipe and attaches to a blank
// page. It stops with the test.
func startBrowser(t *testing.T, bin string) *browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	toChrome, ourW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ourR, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
		"--window-size=1400,1000", "--hide-scrollbars", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // fds 3 and 4
	var stderr lockedBuffer                           // Chromium's complaints (no D-Bus, …), logged only when the test fails
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	toChrome.Close()
	fromChrome.Close()
	t.Cleanup(func() {
		ourW.Close()
		ourR.Close()
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("chromium's standard error:\n%s", stderr.String())
		}
	})
	b := &browser{t: t, w: ourW, rf: ourR, r: bufio.NewReader(ourR)}
	var created struct{ TargetID string }
	b.browserCall("Target.createTarget", map[string]any{"url": "about:blank"}, &created)
	var attached struct{ SessionID string }
	b.browserCall("Target.attachToTarget", map[string]any{"targetId": created.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call("Page.enable", nil, nil)
	b.call("Network.enable", nil, nil)
	return b
}

// lockedBuffer is a bytes.Buffer safe for the process's writes and the
// test's read.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// read returns the next message from Chromium, failing the test after 60 s
// without one.
func (b *browser) read() cdpMessage {
	b.t.Helper()
	m, err := b.readBy(time.Now().Add(60 * time.Second))
	if err != nil {
		b.t.Fatalf("devtools pipe: %v", err)
	}
	return m
}

// readBy returns the next message from Chromium if one comes by deadline.
func (b *browser) readBy(deadline time.Time) (cdpMessage, error) {
	_ = b.rf.SetReadDeadline(deadline)
	line, err := b.r.ReadBytes(0)
	if err != nil {
		return cdpMessage{}, err
	}
	var m cdpMessage
	if err := json.Unmarshal(line[:len(line)-1], &m); err != nil {
		b.t.Fatalf("devtools message %q: %v", line, err)
	}
	return m, nil
}

func (b *browser) send(session, method string, params, result any) {
	b.t.Helper()
	b.id++
	msg := map[string]any{"id": b.id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.w.Write(append(data, 0)); err != nil {
		b.t.Fatalf("devtools pipe: %v", err)
	}
	for {
		m := b.read()
		if m.ID != b.id {
			if m.Method != "" {
				b.events = append(b.events, m)
			}
			continue
		}
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
		return
	}
}

// call sends a command to the page; browserCall to the browser.
func (b *browser) call(method string, params, result any) {
	b.t.Helper()
	b.send(b.session, method, params, result)
}

func (b *browser) browserCall(method string, params, result any) {
	b.t.Helper()
	b.send("", method, params, result)
}

// event waits up to d for the page's next event named method (one already
// read counts) and returns its parameters; false when none came. Once it
// has returned false the pipe may be out of step: the test should end.
func (b *browser) event(method string, d time.Duration) (json.RawMessage, bool) {
	b.t.Helper()
	for i, m := range b.events {
		if m.Method == method && m.SessionID == b.session {
			b.events = append(b.events[:i:i], b.events[i+1:]...)
			return m.Params, true
		}
	}
	deadline := time.Now().Add(d)
	for {
		m, err := b.readBy(deadline)
		if err != nil {
			return nil, false
		}
		if m.Method == method && m.SessionID == b.session {
			return m.Params, true
		}
		if m.Method != "" {
			b.events = append(b.events, m)
		}
	}
}

// loaded waits up to d for the page's next load and returns the status of
// the document it loaded (the last one, after redirects); false when no
// load came.
func (b *browser) loaded(d time.Duration) (int, bool) {
	b.t.Helper()
	if _, ok := b.event("Page.loadEventFired", d); !ok {
		return 0, false
	}
	status := 0
	for _, m := range b.events {
		if m.Method != "Network.responseReceived" || m.SessionID != b.session {
			continue
		}
		var p struct {
			Type     string
			Response struct{ Status int }
		}
		_ = json.Unmarshal(m.Params, &p)
		if p.Type == "Document" {
			status = p.Response.Status
		}
	}
	b.events = nil
	return status, true
}

// open navigates to url and returns the document's status once it loaded.
func (b *browser) open(url string) int {
	b.t.Helper()
	b.events = nil
	var nav struct{ ErrorText string }
	b.call("Page.navigate", map[string]any{"url": url}, &nav)
	if nav.ErrorText != "" {
		b.t.Fatalf("open %s: %s", url, nav.ErrorText)
	}
	status, ok := b.loaded(60 * time.Second)
	if !ok {
		b.t.Fatalf("open %s: the page did not load in 60 s", url)
	}
	return status
}

// dom is the page's DOM as the browser built it, as HTML.
func (b *browser) dom() string {
	b.t.Helper()
	var doc struct{ Root struct{ NodeID int } }
	b.call("DOM.getDocument", map[string]any{"depth": 0}, &doc)
	var out struct{ OuterHTML string }
	b.call("DOM.getOuterHTML", map[string]any{"nodeId": doc.Root.NodeID}, &out)
	return out.OuterHTML
}

// url is the page's address now.
func (b *browser) url() string {
	b.t.Helper()
	var h struct {
		CurrentIndex int
		Entries      []struct{ URL string }
	}
	b.call("Page.getNavigationHistory", nil, &h)
	return h.Entries[h.CurrentIndex].URL
}

// typeInto focuses the element selector names and types text into it, as
// a user's keyboard would.
func (b *browser) typeInto(selector, text string) {
	b.t.Helper()
	var doc struct{ Root struct{ NodeID int } }
	b.call("DOM.getDocument", map[string]any{"depth": 0}, &doc)
	var q struct{ NodeID int }
	b.call("DOM.querySelector", map[string]any{"nodeId": doc.Root.NodeID, "selector": selector}, &q)
	if q.NodeID == 0 {
		b.t.Fatalf("no %s on the page", selector)
	}
	b.call("DOM.focus", map[string]any{"nodeId": q.NodeID}, nil)
	b.call("Input.insertText", map[string]any{"text": text}, nil)
}

// pressEnter presses and releases the Enter key.
func (b *browser) pressEnter() {
	b.t.Helper()
	key := map[string]any{"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13}
	down := map[string]any{"type": "keyDown", "text": "\r"}
	for k, v := range key {
		down[k] = v
	}
	b.call("Input.dispatchKeyEvent", down, nil)
	up := map[string]any{"type": "keyUp"}
	for k, v := range key {
		up[k] = v
	}
	b.call("Input.dispatchKeyEvent", up, nil)
}

// cookies are the browser's cookies for url.
func (b *browser) cookies(url string) []browserCookie {
	b.t.Helper()
	var out struct{ Cookies []browserCookie }
	b.call("Network.getCookies", map[string]any{"urls": []string{url}}, &out)
	return out.Cookies
}

type browserCookie struct {
	Name, Value, Path, SameSite string
	HTTPOnly                    bool `json:"httpOnly"`
	Secure                      bool
	Session                     bool
}

// screenshot saves the page as a PNG at path.
func (b *browser) screenshot(path string) {
	b.t.Helper()
	var shot struct{ Data []byte } // base64 in JSON, decoded by encoding/json
	b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &shot)
	if err := os.WriteFile(path, shot.Data, 0o644); err != nil {
		b.t.Fatal(err)
	}
}
