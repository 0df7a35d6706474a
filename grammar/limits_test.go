package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The conversion's bounds and its cancellation (issue #16).

// nestedItems is a schema of arrays nested depth deep.
func nestedItems(depth int) json.RawMessage {
	return json.RawMessage(strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string"}` + strings.Repeat(`}`, depth))
}

// wantLimit fails unless err is a *LimitError for the bound name, found by errors.As and errors.Is.
func wantLimit(t *testing.T, what string, err error, name string) *LimitError {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimit) {
		t.Fatalf("%s: got %v (%T), want a *LimitError", what, err, err)
	}
	if le.Limit != name {
		t.Fatalf("%s: bound %q, want %q (%v)", what, le.Limit, name, err)
	}
	return le
}

func TestLimitDepth(t *testing.T) {
	if _, _, err := FromJSONSchema(nestedItems(DefaultMaxDepth-1), Options{}); err != nil {
		t.Fatalf("%d levels: %v", DefaultMaxDepth, err)
	}
	_, _, err := FromJSONSchema(nestedItems(DefaultMaxDepth), Options{})
	le := wantLimit(t, "nested items", err, LimitDepth)
	if le.Max != DefaultMaxDepth || !strings.HasPrefix(le.Path, "/items/items/") {
		t.Errorf("bound %d at %q", le.Max, le.Path)
	}
	if _, _, err := FromJSONSchema(nestedItems(10), Options{MaxDepth: 5}); err == nil {
		t.Error("MaxDepth 5: no error")
	}
	// Through properties, each level two JSON levels: the schema's bound comes before the reader's.
	deep := strings.Repeat(`{"type":"object","properties":{"a":`, 90) + `{}` + strings.Repeat(`}}`, 90)
	_, _, err = FromJSONSchema(json.RawMessage(deep), Options{})
	if le := wantLimit(t, "nested properties", err, LimitDepth); le.Max != DefaultMaxDepth {
		t.Errorf("nested properties: bound %d, want the schema's", le.Max)
	}
	// The JSON reader's own bound, for a value nested deeper than any schema level counts.
	_, _, err = FromJSONSchema(json.RawMessage(`{"const":`+strings.Repeat("[", 300)+strings.Repeat("]", 300)+`}`), Options{})
	if le := wantLimit(t, "deep const", err, LimitDepth); le.Max != maxJSONDepth {
		t.Errorf("deep const: bound %d, want the reader's %d", le.Max, maxJSONDepth)
	}
	// A chain of $defs, each the next one's $ref: every target one level deeper.
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range 200 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"d` + strconv.Itoa(i) + `":{"$ref":"#/$defs/d` + strconv.Itoa(i+1) + `"}`)
	}
	b.WriteString(`,"d200":{"type":"string"}}}`)
	_, _, err = FromJSONSchema(json.RawMessage(b.String()), Options{})
	wantLimit(t, "chain of $ref", err, LimitDepth)
}

func TestLimitEnum(t *testing.T) {
	if _, _, err := FromJSONSchema(enumSchema(DefaultMaxEnum), Options{}); err != nil {
		t.Fatalf("%d values: %v", DefaultMaxEnum, err)
	}
	_, _, err := FromJSONSchema(enumSchema(DefaultMaxEnum+1), Options{})
	wantLimit(t, "enum", err, LimitEnum)
	// In a property, as AddMembers describes it (formats write a string enum as raw text).
	schema := json.RawMessage(`{"type":"object","properties":{"e":` + string(enumSchema(50)) + `}}`)
	if _, _, err := AddMembers(New(), "m", schema, Options{MaxEnum: 50}); err != nil {
		t.Fatal(err)
	}
	_, _, err = AddMembers(New(), "m", schema, Options{MaxEnum: 49})
	if le := wantLimit(t, "member enum", err, LimitEnum); le.Path != "/properties/e" {
		t.Errorf("member enum at %q", le.Path)
	}
	// Through Tools, inside a *ToolError.
	_, err = Tools([]Tool{{Name: "pick", Parameters: schema}}, Options{MaxEnum: 10})
	var te *ToolError
	if !errors.As(err, &te) || te.Tool != "pick" {
		t.Errorf("Tools: %v, want a *ToolError", err)
	}
	wantLimit(t, "Tools", err, LimitEnum)
}

func TestLimitNodes(t *testing.T) {
	_, _, err := FromJSONSchema(propsSchema(100, `{"type":"string"}`), Options{MaxNodes: 50})
	wantLimit(t, "100 properties", err, LimitNodes)
	// Every tool counts towards one bound.
	tools := manyTools(40)
	if _, err := Tools(tools, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = Tools(tools, Options{MaxNodes: 100})
	wantLimit(t, "40 tools", err, LimitNodes)
	// Nested member descriptions re-walk a $ref's target at every use: ten properties each the
	// next definition's, eight levels deep, would be 10^8 members.
	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	for d := range 9 {
		if d > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"d` + strconv.Itoa(d) + `":{"type":"object","properties":{`)
		for p := range 10 {
			if p > 0 {
				b.WriteByte(',')
			}
			if d == 8 {
				b.WriteString(`"p` + strconv.Itoa(p) + `":{"type":"string"}`)
			} else {
				b.WriteString(`"p` + strconv.Itoa(p) + `":{"$ref":"#/$defs/d` + strconv.Itoa(d+1) + `"}`)
			}
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`},"$ref":"#/$defs/d0"}`)
	_, _, err = NewConverter(New(), Options{}).NestedMembers("m", json.RawMessage(b.String()))
	wantLimit(t, "nested members", err, LimitNodes)
}

// TestAllOfExpansion: allOf copies its branches' members into one schema, so models used in several
// places inside one another are copied exponentially often: 4^18 copies here, which would not end.
func TestAllOfExpansion(t *testing.T) {
	schema := func(extra string) json.RawMessage {
		var b strings.Builder
		b.WriteString(`{"$ref":"#/$defs/m0","$defs":{`)
		for d := range 18 {
			if d > 0 {
				b.WriteByte(',')
			}
			next := `{"allOf":[{"$ref":"#/$defs/m` + strconv.Itoa(d+1) + `"}` + extra + `],"description":"x"}`
			b.WriteString(`"m` + strconv.Itoa(d) + `":{"type":"object","properties":{"a":` + next + `,"b":` + next +
				`,"c":` + next + `,"d":` + next + `}}`)
		}
		b.WriteString(`,"m18":{"type":"string"}}}`)
		return json.RawMessage(b.String())
	}
	// pydantic's form, one branch and a description: the branch's rule, used twice.
	g, _, err := FromJSONSchema(schema(""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	if !g.Match(strings.Repeat(`{"d":`, 18) + `"x"` + strings.Repeat(`}`, 18)) {
		t.Error("a value of the schema refused")
	}
	// With a branch of their own, every use is merged anew: the bound on nodes ends it.
	_, _, err = FromJSONSchema(schema(`,{"properties":{"z":{"type":"null"}}}`), Options{})
	wantLimit(t, "merged allOf", err, LimitNodes)
}

func TestLimitBytes(t *testing.T) {
	big := json.RawMessage(`{"type":"object","properties":{"c":{"const":"` + strings.Repeat("x", 5000) + `"}}}`)
	if _, _, err := FromJSONSchema(big, Options{MaxBytes: 20_000}); err != nil {
		t.Fatal(err)
	}
	// Each bound is checked where the text grows, which the error's path shows: the conversion
	// stops there, not once the whole schema is done.
	// An anyOf inside another is copied into it, at every level.
	nested := `{"const":"` + strings.Repeat("x", 5000) + `"}`
	for range 20 {
		nested = `{"anyOf":[{"type":"null"},` + nested + `]}`
	}
	_, _, err := FromJSONSchema(json.RawMessage(nested), Options{MaxBytes: 50_000})
	if le := wantLimit(t, "nested anyOf", err, LimitBytes); !strings.HasPrefix(le.Path, "/anyOf/1/anyOf/1/") {
		t.Errorf("nested anyOf: at %q", le.Path)
	}
	inProperty := json.RawMessage(`{"type":"object","properties":{"e":` + string(enumSchema(5000)) + `}}`)
	_, _, err = FromJSONSchema(inProperty, Options{MaxBytes: 10_000})
	if le := wantLimit(t, "enum", err, LimitBytes); le.Path != "/properties/e" {
		t.Errorf("enum: at %q", le.Path)
	}
	_, _, err = AddMembers(New(), "m", inProperty, Options{MaxBytes: 10_000})
	if le := wantLimit(t, "member enum", err, LimitBytes); le.Path != "/properties/e" {
		t.Errorf("member enum: at %q", le.Path)
	}
	// A string enum as members describe it, used by 100 properties.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"$ref":"#/$defs/e"}`)
	}
	b.WriteString(`},"$defs":{"e":` + string(enumSchema(1000)) + `}}`)
	_, _, err = AddMembers(New(), "m", json.RawMessage(b.String()), Options{MaxBytes: 500_000})
	wantLimit(t, "members' enums", err, LimitBytes)
}

// TestParseNesting: Parse refuses expressions nested past maxNesting, which its recursion (and the
// passes over its trees, and llama.cpp's) would otherwise follow as deep as the text goes.
func TestParseNesting(t *testing.T) {
	for name, text := range map[string]string{
		"groups":      "root ::= " + strings.Repeat("(", 5000) + `"a"` + strings.Repeat(")", 5000),
		"repetitions": `root ::= "a"` + strings.Repeat("?", 5000),
		"sequences":   "root ::= " + strings.Repeat(`"a" (`, 2000) + `"b"` + strings.Repeat(")", 2000),
	} {
		_, err := Parse(text)
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, "nested") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Parse("root ::= " + strings.Repeat("(", 100) + `"a"` + strings.Repeat(")", 100)); err != nil {
		t.Error(err)
	}
}

// TestLinearBuilding: schemas whose conversion was quadratic in their size, at sizes where quadratic
// takes minutes (measured before the fix: an enum of 200,000 values 395 s; 20,000 properties of one
// rule name 83 s, so 50,000 some 9 minutes; 50,000 properties 25 s, so 200,000 some 7 minutes; Check
// on a chain of 30,000 rules walked the whole grammar 30,000 times). No timing is asserted: a
// quadratic step back makes the test run out of time.
func TestLinearBuilding(t *testing.T) {
	if testing.Short() {
		t.Skip("large schemas")
	}
	g, _, err := FromJSONSchema(enumSchema(200_000), unbounded)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Match(`"value-199999"`) || g.Match(`"value-200000"`) {
		t.Error("enum of 200,000")
	}
	// Repeated values are dropped, past the first sixteen too.
	rep := json.RawMessage(`{"enum":[` + strings.Repeat(`"a","b",`, 20_000) + `"c"]}`)
	if g, _, err := FromJSONSchema(rep, unbounded); err != nil || g.Rules()[0].Expr != `"\"a\"" | "\"b\"" | "\"c\""` {
		t.Errorf("repeated values: %v %q", err, g.Rules()[0].Expr)
	}
	for name, schema := range map[string]json.RawMessage{
		"200,000 properties":            propsSchema(200_000, `{"type":"string"}`),
		"50,000 properties of one name": sameNameSchema(50_000),
		"anyOf of 20,000":               anyOfSchema(20_000),
	} {
		if _, _, err := FromJSONSchema(schema, unbounded); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// 30,000 optional properties: a chain of 30,000 rules, which Check's fixed point walked once a
	// rule; its left-recursion search followed it as deep.
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range 30_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"type":"integer"}`)
	}
	b.WriteString(`}}`)
	g, _, err = FromJSONSchema(json.RawMessage(b.String()), unbounded)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	if !g.Match(`{"p29999":1}`) || !g.Match(`{}`) || g.Match(`{"p29999":1,"p0":1}`) {
		t.Error("30,000 optional properties")
	}
	// 5,000 tools, as many rules of their own.
	if _, err := Tools(manyTools(5000), unbounded); err != nil {
		t.Fatal(err)
	}
}

// A property's rule name is cut, however long the property's name or the tool's.
func TestLongNames(t *testing.T) {
	long := strings.Repeat("n", 100_000)
	schema := json.RawMessage(`{"type":"object","properties":{"` + long + `":{"type":"object","properties":{"` + long + `":{"type":"array"}}}}}`)
	tg, err := Tools([]Tool{{Name: long, Parameters: schema}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tg.Grammar.Rules() {
		if len(r.Name) > maxRuleName+8 {
			t.Errorf("rule name of %d bytes", len(r.Name))
		}
	}
	if err := tg.Grammar.Check(); err != nil {
		t.Fatal(err)
	}
	if !tg.Grammar.Match(`{"name":"` + long + `","arguments":{"` + long + `":{"` + long + `":[]}}}`) {
		t.Error("call refused")
	}
}

func TestWarningsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"string"`)
	for i := range 1000 {
		b.WriteString(`,"x-` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString(`}`)
	_, warnings, err := FromJSONSchema(json.RawMessage(b.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != maxWarnings+1 || warnings[maxWarnings] != "900 more warnings not shown" {
		t.Errorf("%d warnings, the last %q", len(warnings), warnings[len(warnings)-1])
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	small := json.RawMessage(`{"type":"string"}`)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", what, err)
		}
	}
	_, _, err := FromJSONSchemaContext(ctx, small, Options{})
	check("FromJSONSchemaContext", err)
	_, _, err = AddSchemaContext(ctx, New(), "s", small, Options{})
	check("AddSchemaContext", err)
	_, err = ToolsContext(ctx, []Tool{{Name: "f", Parameters: small}}, Options{})
	check("ToolsContext", err)
	c := NewCache(4)
	_, err = c.ToolsContext(ctx, []Tool{{Name: "f", Parameters: small}}, Options{})
	check("Cache.ToolsContext", err)
	if tg, err := c.Tools([]Tool{{Name: "f", Parameters: small}}, Options{}); err != nil || tg == nil {
		t.Errorf("the stopped build was cached: %v", err)
	}
	conv := NewConverter(New(), Options{})
	conv.SetContext(ctx)
	_, _, err = conv.Members("m", json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`))
	check("Converter.Members", err)
	conv.Reset(Options{})
	if _, _, err := conv.Add("s", small); err != nil {
		t.Errorf("Reset kept the context: %v", err)
	}
	// Not done: nothing changes.
	if _, _, err := FromJSONSchemaContext(context.Background(), propsSchema(10, `{"type":"string"}`), Options{}); err != nil {
		t.Error(err)
	}
}

// leavingCtx is a context whose client leaves after it has been asked after a few times.
type leavingCtx struct {
	context.Context
	asked, after atomic.Int64
}

func (c *leavingCtx) Err() error {
	if c.asked.Add(1) > c.after.Load() {
		return context.Canceled
	}
	return nil
}

func (c *leavingCtx) Done() <-chan struct{} { return nil }

func (c *leavingCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// TestCancelledWhileBuilding: a build looks at its context while it converts one schema, not only
// before it, so that a client who leaves in the middle of a large one stops it.
func TestCancelledWhileBuilding(t *testing.T) {
	for name, schema := range map[string]json.RawMessage{
		"properties": propsSchema(20_000, `{"type":"string"}`),
		"enum":       enumSchema(100_000),
	} {
		ctx := &leavingCtx{Context: context.Background()}
		ctx.after.Store(1) // the look before the schema passes; the next one finds the client gone
		_, _, err := FromJSONSchemaContext(ctx, schema, unbounded)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", name, err)
		}
		if n := ctx.asked.Load(); n != 2 {
			t.Errorf("%s: asked %d times, want 2", name, n)
		}
	}
}
