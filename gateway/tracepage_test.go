package gateway

import (
	"html"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/makeup"
)

// page reads an HTML page, failing unless it has the status wanted.
func page(t *testing.T, resp *http.Response, want int) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("%s: status %d (%s), want %d:\n%s", resp.Request.URL, resp.StatusCode, resp.Header.Get("Content-Type"), want, b)
	}
	return string(b)
}

// element is the text of the element with id in an HTML page, unescaped
// ("" when there is none).
func element(page, id string) string {
	open := regexp.MustCompile(`<(\w+)[^>]* id="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindStringSubmatchIndex(page)
	if open == nil {
		return ""
	}
	rest := page[open[1]:]
	end := strings.Index(rest, "</"+page[open[2]:open[3]]+">")
	if end < 0 {
		return ""
	}
	return html.UnescapeString(rest[:end])
}

// The request page shows the client's request as it came, indented, and
// says when the trace kept only its beginning.
func TestTracePageShowsTheRequest(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "Sunny."}, backend.Chunk{FinishReason: chat.FinishStop}))
	resp := post(t, ts.URL+"/v1/chat/completions", chatBody(`"temperature":0.25`))
	id := resp.Header.Get("X-Dragoman-Request-Id")
	p := page(t, get(t, ts.URL+"/dragoman/requests/"+id), 200)
	req := element(p, "request")
	for _, want := range []string{"\"model\": \"qwen\"", "\"temperature\": 0.25", "\n  \"messages\": [\n", "Weather in Paris?"} {
		if !strings.Contains(req, want) {
			t.Errorf("the client's request lacks %q:\n%s", want, req)
		}
	}
	if strings.Contains(p, `id="request-note"`) {
		t.Errorf("a request kept whole is said to be cut")
	}
	if s := element(p, "status"); s != "200 OK" {
		t.Errorf("status %q", s)
	}
	if h := element(p, "prompt-heading"); h != "Prompt (rendered by Dragoman)" {
		t.Errorf("prompt heading %q", h)
	}

	// Cut at the trace's limit: the beginning, indented as far as it goes,
	// and how much there was.
	cut := newFakeGateway(t, Config{Limits: Limits{MaxTraceBytes: 60}}, qwenRuntime(backend.Chunk{Text: "ok"}, backend.Chunk{FinishReason: chat.FinishStop}))
	body := chatBody("")
	resp = post(t, cut.URL+"/v1/chat/completions", body)
	p = page(t, get(t, cut.URL+"/dragoman/requests/"+resp.Header.Get("X-Dragoman-Request-Id")), 200)
	if n := element(p, "request-note"); !strings.Contains(n, "the first 60 of its "+strconv.Itoa(len(body))+" bytes") {
		t.Errorf("note %q", n)
	}
	if req := element(p, "request"); !strings.HasPrefix(req, "{\n  \"model\": \"qwen\",\n  \"messages\": [\n") {
		t.Errorf("cut request not indented:\n%s", req)
	}
}

// What the page calls the prompt and the completion is what the trace
// holds: a prompt Dragoman rendered, the relay mode's none, a request that
// failed before rendering or while rendering; status and error stand out.
func TestTracePagePromptLabels(t *testing.T) {
	relay := qwenRuntime(backend.Chunk{Text: "prose"}, backend.Chunk{FinishReason: chat.FinishStop})
	relay.url, relay.canComplete = "http://127.0.0.1:2", false
	relay.models = map[string]backend.ModelInfo{"relayed": relay.models["qwen"]}
	broken := qwenRuntime()
	broken.url = "http://127.0.0.1:3"
	broken.models = map[string]backend.ModelInfo{"broken": {Template: `{{ raise_exception("this template refuses") }}`, TemplateOrigin: "fake", EOSToken: "<|im_end|>"}}
	ts := newFakeGateway(t, Config{}, qwenRuntime(), relay, broken)

	for _, c := range []struct {
		name, body                string
		status                    string
		prompt, completion, error string
	}{
		{"bad JSON", `{"model":`, "400 Bad Request", "not rendered: the request failed before rendering: ", "none: nothing was generated", "request"},
		{"relay", `{"model":"relayed","messages":[{"role":"user","content":"hi"}]}`, "200 OK",
			"not rendered by Dragoman: relay mode", "prose", ""},
		{"render failure", `{"model":"broken","messages":[{"role":"user","content":"hi"}]}`, "400 Bad Request",
			"not rendered: rendering failed: ", "none: nothing was generated", "this template refuses"},
	} {
		resp := post(t, ts.URL+"/v1/chat/completions", c.body)
		id := resp.Header.Get("X-Dragoman-Request-Id")
		p := page(t, get(t, ts.URL+"/dragoman/requests/"+id), 200)
		if s := element(p, "status"); s != c.status {
			t.Errorf("%s: status %q, want %q", c.name, s, c.status)
		}
		if pr := element(p, "prompt"); !strings.HasPrefix(pr, c.prompt) || strings.Contains(pr, "relay") != (c.name == "relay") {
			t.Errorf("%s: prompt %q, want %q…", c.name, pr, c.prompt)
		}
		if h := element(p, "prompt-heading"); h != "Prompt" {
			t.Errorf("%s: prompt heading %q", c.name, h)
		}
		if co := element(p, "completion"); !strings.HasPrefix(co, c.completion) {
			t.Errorf("%s: completion %q, want %q", c.name, co, c.completion)
		}
		e := element(p, "error")
		if (c.error == "") != (e == "") || !strings.Contains(e, c.error) {
			t.Errorf("%s: error %q, want one with %q", c.name, e, c.error)
		}
		if c.error != "" && !strings.Contains(element(p, "prompt"), c.error) {
			t.Errorf("%s: the prompt's note does not say why: %q", c.name, element(p, "prompt"))
		}
		if c.name == "relay" && !strings.Contains(element(p, "completion-heading"), "relay mode") {
			t.Errorf("relay: completion heading %q", element(p, "completion-heading"))
		}
	}
}

// The list and the JSON index show each request's status and error; a
// failed request's row is marked.
func TestTraceListStatusAndError(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime(backend.Chunk{Text: "ok"}, backend.Chunk{FinishReason: chat.FinishStop}))
	good := post(t, ts.URL+"/v1/chat/completions", chatBody("")).Header.Get("X-Dragoman-Request-Id")
	bad := post(t, ts.URL+"/v1/chat/completions", `{"model":"nosuch","messages":[{"role":"user","content":"hi"}]}`).Header.Get("X-Dragoman-Request-Id")
	list := page(t, get(t, ts.URL+"/dragoman/"), 200)
	row := func(id string) string {
		return regexp.MustCompile(`<tr id="row-` + id + `"[^>]*>.*</tr>`).FindString(list)
	}
	if r := row(good); !strings.Contains(r, `class=""`) || !strings.Contains(r, `<td class="status" title="200 OK">200</td>`) {
		t.Errorf("good row %s", r)
	}
	r := row(bad)
	if !strings.Contains(r, `class="failed"`) || !strings.Contains(r, `<td class="status" title="404 Not Found">404</td>`) || !strings.Contains(r, "nosuch") {
		t.Errorf("failed row %s", r)
	}
	index := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests"))
	if path(index, "requests", 0, "id") != bad || path(index, "requests", 0, "status") != 404.0 ||
		!strings.Contains(path(index, "requests", 0, "error").(string), "nosuch") ||
		path(index, "requests", 1, "status") != 200.0 || path(index, "requests", 1, "error") != nil {
		t.Errorf("index %v", index)
	}
}

// The make-up bar: one segment per part with tokens, in prompt order, each
// as wide as its share; the widths add up to 100%.
func TestTracePageMakeupBar(t *testing.T) {
	gguf := tinyModel(t)
	rt := &fakeRuntime{kind: backend.Ollama, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"tiny": {GGUFPath: gguf, ContextLength: 40960}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
	ts := newFakeGateway(t, Config{}, rt)
	body := `{"model":"tiny","messages":[{"role":"system","content":"` + strings.Repeat("Be brief and exact. ", 20) +
		`"},{"role":"user","content":"hi"},{"role":"assistant","content":"Hello."},{"role":"user","content":"Weather in Paris?"}],"tools":` + weatherTools + `}`
	id := post(t, ts.URL+"/v1/chat/completions", body).Header.Get("X-Dragoman-Request-Id")
	p := page(t, get(t, ts.URL+"/dragoman/requests/"+id), 200) // the page first: it runs the deferred make-up itself
	tr := decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests/"+id))
	var want []float64
	sum := 0.0
	for _, part := range path(tr, "makeup", "parts").([]any) {
		if n := path(part, "tokens").(float64); n > 0 {
			want = append(want, n)
			sum += n
		}
	}
	if len(want) < 4 {
		t.Fatalf("make-up parts %v", path(tr, "makeup"))
	}
	bar := regexp.MustCompile(`<div id="makeup-bar" class="bar">.*?</div>`).FindString(p)
	segs := regexp.MustCompile(`<span class="seg ([^"]+)" style="width:([0-9.]+)%" data-tokens="(\d+)"`).FindAllStringSubmatch(bar, -1)
	if len(segs) != len(want) {
		t.Fatalf("%d segments for %d parts with tokens:\n%s", len(segs), len(want), bar)
	}
	total := 0.0
	for i, s := range segs {
		w, _ := strconv.ParseFloat(s[2], 64)
		n, _ := strconv.Atoi(s[3])
		total += w
		if float64(n) != want[i] || math.Abs(w-want[i]*100/sum) > 0.01 {
			t.Errorf("segment %d (%s): %d tokens at %.3f%%, want %v at %.3f%%", i, s[1], n, w, want[i], want[i]*100/sum)
		}
	}
	if math.Abs(total-100) > 0.05 {
		t.Errorf("the widths add up to %.3f%%", total)
	}
	if !strings.Contains(bar, `class="seg k-system"`) || !strings.Contains(bar, `class="seg k-message r-user"`) || !strings.Contains(bar, `class="seg k-template"`) {
		t.Errorf("segments' kinds: %s", bar)
	}
	if !strings.Contains(p, `<table id="makeup">`) {
		t.Error("the make-up's table is gone")
	}
}

// A template part below zero (tokens merging across parts) is left out of
// the bar, which is then scaled to the parts and says so; unmeasured parts
// have no segment.
func TestMakeupBarNegativeResidual(t *testing.T) {
	m := &makeup.Makeup{Total: 90, Parts: []makeup.Part{
		{Kind: makeup.KindSystem, Name: "system", Tokens: 50},
		{Kind: makeup.KindMessage, Name: "message 1 (user)", Role: "user", Tokens: 50},
		{Kind: makeup.KindMessage, Name: "message 2 (user)", Role: "user", Unmeasured: true},
		{Kind: makeup.KindTemplate, Name: "template", Tokens: -10},
	}}
	segs, note := makeupBar(m)
	if len(segs) != 2 || segs[0].Width != "50.000" || segs[1].Width != "50.000" || segs[1].Class != "k-message r-user" {
		t.Errorf("segments %+v", segs)
	}
	if !strings.Contains(note, "100 tokens") || !strings.Contains(note, "has 90") {
		t.Errorf("note %q", note)
	}
}

// noRedirects is a client that hands back redirects instead of following
// them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// login posts the login form with headers (name, value pairs).
func login(t *testing.T, base string, form url.Values, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", base+loginPath, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// With a key, a page opened without it is the login form (401); the right
// key posted from the gateway's own page sets an HttpOnly, SameSite=Strict
// cookie that opens the pages and their JSON, for reading only.
func TestTracePagesLogin(t *testing.T) {
	ts := newFakeGateway(t, Config{APIKey: "sekret"}, qwenRuntime(backend.Chunk{Text: "ok"}, backend.Chunk{FinishReason: chat.FinishStop}))
	id := post(t, ts.URL+"/v1/chat/completions", chatBody(""), "Authorization", "Bearer sekret").Header.Get("X-Dragoman-Request-Id")
	origin := "Origin"
	self := ts.URL // http://127.0.0.1:PORT, the Origin of the gateway's own page

	// No key: the form, which the page's CSP lets post to the gateway only.
	resp := get(t, ts.URL+"/dragoman/requests/"+id)
	form := page(t, resp, 401)
	if !strings.Contains(form, `action="/dragoman/login"`) || !strings.Contains(form, `name="next" value="/dragoman/requests/`+id+`"`) {
		t.Errorf("login form:\n%s", form)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("login page CSP %q", csp)
	}
	if csp := request(t, "GET", ts.URL+"/dragoman/", "", "", "Authorization", "Bearer sekret").Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'none'") {
		t.Errorf("the other pages' CSP %q", csp)
	}
	if resp := get(t, ts.URL+"/v1/dragoman/requests"); resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("JSON index without the key: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	page(t, get(t, ts.URL+loginPath), 200)

	// A wrong key: the form again, 401, no cookie.
	resp = login(t, ts.URL, url.Values{"key": {"wrong"}, "next": {"/dragoman/"}}, origin, self)
	if resp.StatusCode != 401 || len(resp.Cookies()) != 0 {
		t.Fatalf("wrong key: status %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	if b, _ := io.ReadAll(resp.Body); !strings.Contains(html.UnescapeString(string(b)), "not this gateway's key") {
		t.Errorf("wrong key page:\n%s", b)
	}

	// From another origin — another site, another port of this machine, a
	// browser's cross-site flag — refused, whatever the key.
	for _, h := range [][]string{{origin, "https://evil.example"}, {origin, "http://localhost:1"}, {origin, "null"},
		{"Sec-Fetch-Site", "cross-site"}, {"Sec-Fetch-Site", "same-site"}} {
		if resp := login(t, ts.URL, url.Values{"key": {"sekret"}}, h...); resp.StatusCode != 403 || len(resp.Cookies()) != 0 {
			t.Errorf("%s: %s: status %d, cookies %v", h[0], h[1], resp.StatusCode, resp.Cookies())
		}
	}

	// The right key: the cookie, and on to the page asked for.
	resp = login(t, ts.URL, url.Values{"key": {"sekret"}, "next": {"/dragoman/requests/" + id}}, origin, self, "Sec-Fetch-Site", "same-origin")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/dragoman/requests/"+id {
		t.Fatalf("right key: status %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookies := resp.Cookies()
	if len(cookies) != 1 {
		t.Fatalf("cookies %v", cookies)
	}
	c := cookies[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure || c.Path != "/" || c.MaxAge <= 0 || c.Value == "" || strings.Contains(c.Value, "sekret") {
		t.Errorf("cookie %+v", c)
	}
	with := func(method, u, body string) *http.Response {
		req, _ := http.NewRequest(method, u, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(c)
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if p := page(t, with("GET", ts.URL+"/dragoman/requests/"+id, ""), 200); element(p, "status") != "200 OK" {
		t.Errorf("the page with the cookie:\n%s", p)
	}
	page(t, with("GET", ts.URL+"/dragoman/", ""), 200)
	for _, u := range []string{"/v1/dragoman/requests", "/v1/dragoman/requests/" + id} {
		if resp := with("GET", ts.URL+u, ""); resp.StatusCode != 200 {
			t.Errorf("GET %s with the cookie: %d", u, resp.StatusCode)
		}
	}
	if resp := with("GET", ts.URL+loginPath, ""); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("the login page with the cookie: %d", resp.StatusCode)
	}
	// The cookie runs nothing and reads nothing else.
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/chat/completions", chatBody("")}, {"POST", "/v1/messages", chatBody("")}, {"POST", "/api/chat", chatBody("")},
		{"GET", "/v1/models", ""}, {"GET", "/metrics", ""}, {"GET", "/dragoman/../v1/models", ""},
		{"POST", "/v1/dragoman/requests", ""}, {"DELETE", "/dragoman/requests/" + id, ""},
	} {
		if resp := with(c.method, ts.URL+c.path, c.body); resp.StatusCode != 401 {
			t.Errorf("%s %s with the cookie: %d, want 401", c.method, c.path, resp.StatusCode)
		}
	}
	// A cookie of another key opens nothing.
	c.Value = strings.Repeat("0", len(c.Value))
	page(t, with("GET", ts.URL+"/dragoman/", ""), 401)

	// Served over TLS (as the page's https Origin says), the cookie is Secure;
	// a login goes on to the trace pages only.
	resp = login(t, ts.URL, url.Values{"key": {"sekret"}, "next": {"//evil.example/"}}, origin, strings.Replace(self, "http://", "https://", 1))
	if cs := resp.Cookies(); resp.StatusCode != http.StatusSeeOther || len(cs) != 1 || !cs[0].Secure || resp.Header.Get("Location") != "/dragoman/" {
		t.Errorf("https login: status %d, cookies %v, Location %q", resp.StatusCode, cs, resp.Header.Get("Location"))
	}
}

// With no key configured there is nothing to log in to.
func TestTracePagesLoginWithoutKey(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	if resp := login(t, ts.URL, url.Values{"key": {"x"}}); resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 0 {
		t.Errorf("status %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	page(t, get(t, ts.URL+"/dragoman/"), 200)
}
