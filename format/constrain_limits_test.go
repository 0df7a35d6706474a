package format

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// The call constraint under the grammar's bounds and a request's context
// (issue #16).

// optionalTool is a tool of n optional parameters, p0 … p(n-1), strings
// and integers in turn.
func optionalTool(n int) []chat.Tool {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		ty := "string"
		if i%2 == 1 {
			ty = "integer"
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"type":"` + ty + `"}`)
	}
	b.WriteString(`}}`)
	return []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "f", Parameters: json.RawMessage(b.String())}}}
}

// pythonicCall is f's call in the pythonic family with the parameters
// given, in that order.
func pythonicCall(params []int) string {
	var b strings.Builder
	b.WriteString("[f(")
	for k, p := range params {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString("p" + strconv.Itoa(p) + "=")
		if p%2 == 1 {
			b.WriteString(strconv.Itoa(p))
		} else {
			b.WriteString(`'x'`)
		}
	}
	b.WriteString(")]")
	return b.String()
}

// TestManyOptionalArguments: the tails of separated arguments (pythonic's
// key=value list) were each a rule holding the whole rest of the list, so
// the grammar grew with the square of the parameters: 13 MB for 1000, 1.35
// GB (23 s) for 10,000. Chained, each rule holds one parameter.
func TestManyOptionalArguments(t *testing.T) {
	f := mustFamily(t, "pythonic")
	for _, n := range []int{400, 10_000} {
		c, err := f.Constrain(optionalTool(n), ToolChoice{Mode: "required"}, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Grammar) > 200*n {
			t.Errorf("%d parameters: %d bytes of grammar", n, len(c.Grammar))
		}
		g, err := grammar.Parse(c.Grammar)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Check(); err != nil {
			t.Fatal(err)
		}
		if n > 1000 {
			if !g.Match(pythonicCall([]int{n - 1})) || !g.Match(pythonicCall([]int{3, n - 2})) || g.Match(pythonicCall([]int{n - 1, 3})) {
				t.Errorf("%d parameters: calls", n)
			}
			continue
		}
		// Random choices of the parameters, in order; and out of order or
		// repeated, refused.
		r := rand.New(rand.NewPCG(16, 16))
		for range 40 {
			var params []int
			for p := range n {
				if r.IntN(8) == 0 {
					params = append(params, p)
				}
			}
			if call := pythonicCall(params); !g.Match(call) {
				t.Fatalf("refused: %s", call)
			}
			if len(params) < 2 {
				continue
			}
			k := r.IntN(len(params) - 1)
			swapped := append([]int(nil), params...)
			swapped[k], swapped[k+1] = swapped[k+1], swapped[k]
			repeated := append(append([]int(nil), params[:k+1]...), params[k:]...)
			for _, bad := range [][]int{swapped, repeated} {
				if call := pythonicCall(bad); g.Match(call) {
					t.Fatalf("accepted: %s", call)
				}
			}
		}
	}
}

// enumTool is a tool whose one parameter is a string enum of n values.
func enumTool(n int) []chat.Tool {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{"e":{"type":"string","enum":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"v` + strconv.Itoa(i) + `"`)
	}
	b.WriteString(`]}},"required":["e"]}`)
	return []chat.Tool{{Type: "function", Function: chat.ToolFunction{Name: "pick", Parameters: json.RawMessage(b.String())}}}
}

// TestConstrainLimit: a schema past the grammar's bounds is an error the
// caller can tell (a *grammar.LimitError inside), both where the arguments
// are one JSON object (hermes) and where they are written one by one
// (qwen3-coder-xml).
func TestConstrainLimit(t *testing.T) {
	for _, id := range []string{"hermes", "qwen3-coder-xml"} {
		f := mustFamily(t, id)
		if _, err := f.Constrain(enumTool(grammar.DefaultMaxEnum), ToolChoice{Mode: "auto"}, false); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		_, err := f.Constrain(enumTool(grammar.DefaultMaxEnum+1), ToolChoice{Mode: "auto"}, false)
		var le *grammar.LimitError
		if !errors.As(err, &le) || !errors.Is(err, grammar.ErrLimit) || le.Limit != grammar.LimitEnum {
			t.Errorf("%s: %v, want a *grammar.LimitError for the enum", id, err)
		}
		if err != nil && !strings.Contains(err.Error(), `"pick"`) {
			t.Errorf("%s: %v does not name the tool", id, err)
		}
	}
}

func TestConstrainContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tools := optionalTool(3)
	for _, id := range []string{"hermes", "qwen3-coder-xml"} {
		f := mustFamily(t, id)
		if _, err := f.ConstrainContext(ctx, tools, ToolChoice{Mode: "auto"}, false); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", id, err)
		}
		want, err := f.Constrain(tools, ToolChoice{Mode: "auto"}, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := f.ConstrainContext(context.Background(), tools, ToolChoice{Mode: "auto"}, false)
		if err != nil || got.Grammar != want.Grammar {
			t.Errorf("%s: with a context: %v", id, err)
		}
		// The pooled builder does not keep the context for the next constraint.
		if _, err := f.Constrain(tools, ToolChoice{Mode: "required"}, false); err != nil {
			t.Errorf("%s: after a stopped build: %v", id, err)
		}
		cc := NewConstraintCache(4)
		if _, err := cc.ConstrainContext(ctx, f, tools, ToolChoice{Mode: "auto"}, false); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: cache: %v, want context.Canceled", id, err)
		}
		if c, err := cc.Constrain(f, tools, ToolChoice{Mode: "auto"}, false); err != nil || c.Grammar != want.Grammar {
			t.Errorf("%s: cache after a stopped build: %v", id, err)
		}
	}
}
