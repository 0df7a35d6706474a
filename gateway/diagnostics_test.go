package gateway

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/backend"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/dragoman-dev/dragoman/jinja"
	"github.com/dragoman-dev/dragoman/trace"
)

// A call to a tool the request did not offer is reported once, whether the
// family's parser checks names itself (llama3-json does) or not (hermes):
// the parser's report, which knows where the call is, is the one kept.
func TestUnknownToolReportedOnce(t *testing.T) {
	tools := []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "get_weather", Parameters: []byte(`{"type":"object"}`)}}}
	for _, c := range []struct{ family, output string }{
		{"llama3-json", `{"name": "launch_rocket", "parameters": {}}`},
		{"hermes", "<tool_call>\n{\"name\": \"launch_rocket\", \"arguments\": {}}\n</tool_call>"},
	} {
		t.Run(c.family, func(t *testing.T) {
			f, ok := format.Lookup(c.family)
			if !ok {
				t.Fatalf("no family %s", c.family)
			}
			x := &exchange{req: &chat.Request{Tools: tools}, rec: &trace.Record{}, out: &collected{write: completeOpenAI},
				pending: map[int]*chat.ToolCall{}, parser: f.New(format.Options{Tools: tools})}
			if err := x.events(x.parser.Feed(c.output)); err != nil {
				t.Fatal(err)
			}
			if err := x.closeParser(); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, d := range x.rec.Diagnostics {
				if d.Code == "unknown-tool" {
					n++
				}
			}
			if len(x.rec.Calls) != 1 || n != 1 {
				t.Errorf("calls %v, diagnostics %+v: want one call and one unknown-tool", x.rec.Calls, x.rec.Diagnostics)
			}
		})
	}
}

// Errors a client sees name the runtime, never its address; the trace keeps
// the whole message for the operator.
func TestClientErrorsNameNoAddress(t *testing.T) {
	const addr = "10.1.2.3:8000"
	refused := errors.New(`Post "http://` + addr + `/api/generate": dial tcp ` + addr + `: connect: connection refused`)
	for _, c := range []struct {
		name   string
		setup  func(rt *fakeRuntime)
		stream bool
	}{
		{"refused", func(rt *fakeRuntime) { rt.startErr = refused }, false},
		{"cut, not streamed", func(rt *fakeRuntime) { rt.script, rt.err = []backend.Chunk{{Text: "Hi"}}, refused }, false},
		{"cut, streamed", func(rt *fakeRuntime) { rt.script, rt.err = []backend.Chunk{{Text: "Hi"}}, refused }, true},
		{"listing failed", func(rt *fakeRuntime) { rt.modelsErr = refused }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rt := qwenRuntime()
			rt.url = "http://" + addr
			c.setup(rt)
			ts := newFakeGateway(t, Config{}, rt)
			body := chatBody("")
			if c.stream {
				body = chatBody(`"stream":true`)
			}
			resp := post(t, ts.URL+"/v1/chat/completions", body)
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(raw), "10.1.2.3") || !strings.Contains(string(raw), "connection refused") ||
				strings.Contains(string(raw), "/api/generate") {
				t.Errorf("the client was told %s", raw)
			}
			rs, _ := path(decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests")), "requests").([]any)
			if len(rs) == 0 || !strings.Contains(str(path(rs[0], "error")), addr) {
				t.Errorf("the trace lost the address: %v", rs)
			}
		})
	}
}

// A render whose client has left stops, with the client's leaving as its
// error (a 499 in the trace), not a template failure (a 400).
func TestRenderStopsWhenClientLeaves(t *testing.T) {
	tpl, err := jinja.Compile(`{% for i in range(900000) %}{{ i }}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &Server{}
	x := &exchange{s: s, client: ctx, req: &chat.Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}}, rec: &trace.Record{},
		rt: &route{up: &upstream{}, state: &modelState{tpl: tpl}}}
	if _, err := x.render(nil); !errors.Is(err, context.Canceled) {
		t.Errorf("render after the client left: %v", err)
	}
}
