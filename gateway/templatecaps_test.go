package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// templateRuntime is a fake raw-prompt runtime serving one model with tpl.
func templateRuntime(tpl string) *fakeRuntime {
	return &fakeRuntime{kind: backend.LlamaServer, url: "http://127.0.0.1:1", canComplete: true,
		models: map[string]backend.ModelInfo{"m": {Template: tpl, TemplateOrigin: "test", EOSToken: "</s>"}},
		script: []backend.Chunk{{Text: "ok"}, {FinishReason: chat.FinishStop}}}
}

// A template that prints message.content as it is would show a list of
// parts as its Python repr: the text parts reach it joined instead, for
// every role, tool results included.
func TestContentPartsJoinedForStringTemplates(t *testing.T) {
	rt := qwenRuntime(backend.Chunk{Text: "ok"}, backend.Chunk{FinishReason: chat.FinishStop})
	ts := newFakeGateway(t, Config{}, rt)
	body := `{"model":"qwen","tools":` + weatherTools + `,"messages":[
		{"role":"system","content":[{"type":"text","text":"Be brief."}]},
		{"role":"user","content":[{"type":"text","text":"Weather"},{"type":"text","text":"in Paris?","cache_control":{"type":"ephemeral"}}]},
		{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"call_1","content":[{"type":"text","text":"18C"}]}]}`
	resp := post(t, ts.URL+"/v1/chat/completions", body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %v", resp.StatusCode, decodeBody(t, resp))
	}
	prompt := rt.completes[0].Prompt
	for _, want := range []string{"<|im_start|>system\nBe brief.<|im_end|>", "Weather\nin Paris?", "<tool_response>\n18C\n</tool_response>"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q:\n%s", want, prompt)
		}
	}
	if strings.Contains(prompt, "'type'") {
		t.Errorf("a part reached the prompt as a Python repr:\n%s", prompt)
	}
}

// A template that iterates content parts gets them as parts, as
// transformers passes them.
func TestContentPartsKeptForPartTemplates(t *testing.T) {
	const tpl = `{% for m in messages %}[{{ m.role }}]{% if m.content is string %}{{ m.content }}{% else %}{% for p in m.content %}<{{ p.type }}:{{ p.text }}>{% endfor %}{% endif %}{% endfor %}`
	rt := templateRuntime(tpl)
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if got := rt.completes[0].Prompt; got != "[user]<text:a><text:b>" {
		t.Errorf("prompt %q: the parts should reach the template as parts", got)
	}
}

// An image cannot be put into a rendered prompt: a clear 400 in the
// client's dialect, never the template's Python error.
func TestImagePartRefusedInOwnMode(t *testing.T) {
	rt := qwenRuntime()
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"qwen","messages":[{"role":"user","content":[{"type":"text","text":"What is it?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`)
	v := decodeBody(t, resp)
	msg, _ := path(v, "error", "message").(string)
	if resp.StatusCode != 400 || !strings.Contains(msg, "image_url part") || path(v, "error", "param") != "messages" {
		t.Errorf("status %d, error %v", resp.StatusCode, v)
	}
}

// Qwen3's template has no branch for the developer role and renders nothing
// for it: the gateway gives it the system role, and says so.
func TestDeveloperRoleRenderedAsSystem(t *testing.T) {
	tpl, err := os.ReadFile(filepath.Join(fixtures.Require(t), "corpus", "templates", "Qwen-Qwen3-0.6B.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	rt := templateRuntime(string(tpl))
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"developer","content":"Answer in French."},{"role":"user","content":"Hi"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if p := rt.completes[0].Prompt; !strings.Contains(p, "<|im_start|>system\nAnswer in French.<|im_end|>") {
		t.Errorf("the developer text is not the system turn:\n%s", p)
	}
	rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
	if !strings.Contains(strings.Join(rec.Decisions, "\n"), "developer message(s) rendered as system") {
		t.Errorf("no decision says so: %v", rec.Decisions)
	}
	if len(rec.Diagnostics) != 0 {
		t.Errorf("diagnostics %v", rec.Diagnostics)
	}
}

// A template with a branch for the developer role gets it as it is.
func TestDeveloperRoleKeptWhereTheTemplateKnowsIt(t *testing.T) {
	rt := templateRuntime(`{% for m in messages %}{% if m.role == "developer" %}<dev>{{ m.content }}{% else %}<{{ m.role }}>{{ m.content }}{% endif %}{% endfor %}`)
	ts := newFakeGateway(t, Config{}, rt)
	post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"developer","content":"D"},{"role":"user","content":"U"}]}`)
	if p := rt.completes[0].Prompt; p != "<dev>D<user>U" {
		t.Errorf("prompt %q", p)
	}
}

// A message the template leaves out of the prompt gets a diagnostic.
func TestDroppedMessageDiagnosed(t *testing.T) {
	rt := templateRuntime(`{% for m in messages %}{% if m.role == "user" %}<u>{{ m.content }}{% endif %}{% endfor %}`)
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"system","content":"Never shown."},{"role":"user","content":"Hi"}]}`)
	v := decodeBody(t, resp)
	d := path(v, "dragoman", "diagnostics", 0)
	if path(d, "code") != "message-not-in-prompt" || !strings.Contains(path(d, "message").(string), "messages[0] (system)") {
		t.Errorf("diagnostics %v", path(v, "dragoman"))
	}
}

// Across the corpus, text parts never reach a prompt as a repr and never
// vanish where the same text as a string would have been rendered.
func TestContentPartsOnEveryCorpusTemplate(t *testing.T) {
	templates := corpusTemplates(t)
	checked := 0
	for name, src := range templates {
		send := func(content string) (*fakeRuntime, int) {
			rt := templateRuntime(string(src))
			ts := newFakeGateway(t, Config{}, rt)
			resp := post(t, ts.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":`+content+`}]}`)
			resp.Body.Close()
			return rt, resp.StatusCode
		}
		plain, status := send(`"Alpha beta\ngamma"`)
		if status != 200 {
			continue // the template refuses this conversation whatever its shape
		}
		parts, status := send(`[{"type":"text","text":"Alpha beta"},{"type":"text","text":"gamma"}]`)
		if status != 200 {
			t.Errorf("%s: parts refused (%d) where the string renders", name, status)
			continue
		}
		got := parts.completes[0].Prompt
		if strings.Contains(got, "'type'") || strings.Contains(got, `"type": "text"`) {
			t.Errorf("%s: a part reached the prompt as text:\n%s", name, got)
		}
		if strings.Contains(plain.completes[0].Prompt, "Alpha beta\ngamma") && !strings.Contains(got, "Alpha beta") {
			t.Errorf("%s: the parts' text is missing:\n%s", name, got)
		}
		checked++
	}
	t.Logf("%d of %d templates checked", checked, len(templates))
}

// toolRoundBody is a conversation with one tool round whose call id is id.
func toolRoundBody(id string) string {
	return `{"model":"m","tools":` + weatherTools + `,"messages":[
		{"role":"user","content":"Weather in Paris?"},
		{"role":"assistant","content":null,"tool_calls":[{"id":"` + id + `","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
		{"role":"tool","tool_call_id":"` + id + `","content":"18C"}]}`
}

// Mistral's templates raise unless a call id has nine characters, and
// clients make longer ones (Anthropic's toolu_…, OpenAI's call_…): the
// prompt gets nine derived from each, the same nine for the call and its
// result and on every request, and the trace says so.
func TestClientCallIDsReshapedForMistral(t *testing.T) {
	tpl, err := os.ReadFile(filepath.Join(fixtures.Require(t), "corpus", "templates", "mistralai-Mistral-Nemo-Instruct-2407.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	const clientID = "toolu_01A09q90qw90lq917835lq9"
	rt := templateRuntime(string(tpl))
	ts := newFakeGateway(t, Config{}, rt)
	var prompts []string
	for range 2 {
		resp := post(t, ts.URL+"/v1/chat/completions", toolRoundBody(clientID))
		if resp.StatusCode != 200 {
			t.Fatalf("status %d: %v", resp.StatusCode, decodeBody(t, resp))
		}
		rec := traceOf(t, ts, ts.URL, resp.Header.Get("X-Dragoman-Request-Id"))
		if !strings.Contains(strings.Join(rec.Decisions, "\n"), "2 id(s) rendered as nine") {
			t.Errorf("no decision says so: %v", rec.Decisions)
		}
		prompts = append(prompts, rt.completes[len(rt.completes)-1].Prompt)
	}
	shaped := chat.ShapedCallID(clientID)
	if n := strings.Count(prompts[0], `"`+shaped+`"`); n != 2 {
		t.Errorf("the derived id %q is in the prompt %d times, want the call's and the result's:\n%s", shaped, n, prompts[0])
	}
	if strings.Contains(prompts[0], clientID) {
		t.Errorf("the client's id reached the prompt:\n%s", prompts[0])
	}
	if prompts[0] != prompts[1] {
		t.Errorf("the same conversation rendered two prompts:\n%s\n%s", prompts[0], prompts[1])
	}
}

// A template that takes any id gets the client's as it is.
func TestClientCallIDsKeptWhereTheTemplateTakesAny(t *testing.T) {
	rt := templateRuntime(`{% for m in messages %}{% for c in m.tool_calls or [] %}[{{ c.id }}]{% endfor %}{% if m.tool_call_id %}({{ m.tool_call_id }}){% endif %}{% endfor %}`)
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", toolRoundBody("call_abc"))
	resp.Body.Close()
	if p := rt.completes[0].Prompt; p != "[call_abc](call_abc)" {
		t.Errorf("prompt %q", p)
	}
}

// Across the corpus, a tool round with a client's id renders wherever the
// same round with a nine-character id does.
func TestClientCallIDsOnEveryCorpusTemplate(t *testing.T) {
	templates := corpusTemplates(t)
	checked := 0
	for name, src := range templates {
		send := func(id string) int {
			ts := newFakeGateway(t, Config{}, templateRuntime(string(src)))
			resp := post(t, ts.URL+"/v1/chat/completions", toolRoundBody(id))
			resp.Body.Close()
			return resp.StatusCode
		}
		if send("abc123XYZ") != 200 {
			continue // the template refuses this conversation whatever the id
		}
		if status := send("call_" + strings.Repeat("q", 24)); status != 200 {
			t.Errorf("%s: a client's call id refused (%d) where a nine-character one renders", name, status)
		}
		checked++
	}
	t.Logf("%d of %d templates checked", checked, len(templates))
}

// corpusTemplates reads every corpus template, by file name.
func corpusTemplates(t *testing.T) map[string][]byte {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(fixtures.Require(t), "corpus", "templates", "*.jinja"))
	if len(paths) == 0 {
		t.Fatal("no corpus templates")
	}
	out := make(map[string][]byte, len(paths))
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = src
	}
	return out
}
