package bench

import (
	"fmt"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/grammar"
)

// SchemaOutput looks for an answer to it that both the checker passes and
// the offered tools' JSON Schemas admit, as Dragoman's constrained decoding
// would enforce them (grammar.FromJSONSchema: types, enums, required and no
// extra members, members in the schema's order). It returns that answer, or
// why there is none: some of BFCL's answers want values their own schema
// forbids (FORMAT.md §4.3: a boolean with a string enum, an integer that
// must be "dontcare"), and a run that constrains output cannot win those —
// a report counts them apart rather than blame the constraint.
//
// Per expected call, each parameter the call must carry (required, or
// without the "" marker) takes the first candidate value that both its own
// schema's grammar and the checker accept (see admittedValue); the
// arguments are then matched whole and the answer checked. Each choice is
// exact, so a conflict could only be overstated where the greedy parallel
// matching needed another choice among several fitting values; none of
// BFCL's conflicts is of that kind (each is one parameter's, or a parameter
// the schema lacks: TestSchemaOutputBFCL). Items expecting no call, or any
// call, have no conflict.
func SchemaOutput(it *Item) ([]chat.ToolCall, string) {
	if it.Expected.Mode == ModeNoCall || it.Expected.Mode == ModeAnyCall {
		return nil, ""
	}
	var out []chat.ToolCall
	for i := range it.Expected.Calls {
		want := &it.Expected.Calls[i]
		tool, fn := it.tool(want.Name), it.function(want.Name)
		if it.Expected.Mode == ModeSimple {
			tool, fn = &it.Tools[0], &it.Functions[0]
		}
		args, why := schemaArguments(tool, fn, want)
		if why != "" {
			return nil, fmt.Sprintf("%s: %s", want.Name, why)
		}
		out = append(out, chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: tool.Function.Name, Arguments: args.String()}})
	}
	if res := Check(it, out, Options{}); !res.Pass {
		return nil, fmt.Sprintf("the schema-admitted answer fails: %s: %s", res.Kind, res.Message)
	}
	return out, ""
}

func (it *Item) tool(name string) *chat.Tool {
	for i := range it.Tools {
		if it.Tools[i].Function.Name == name {
			return &it.Tools[i]
		}
	}
	return nil
}

// schemaArguments builds one call's arguments in the schema's member order.
func schemaArguments(tool *chat.Tool, fn *Function, want *ExpectedCall) (Value, string) {
	params, err := ParseValue(tool.Function.Parameters)
	if err != nil {
		return Value{}, err.Error()
	}
	required := map[string]bool{}
	reqList, _ := params.Get("required")
	for _, r := range reqList.Items() {
		required[r.Str()] = true
	}
	for _, p := range want.Params {
		props, _ := params.Get("properties")
		if _, ok := props.Get(p.Name); !ok && !hasMarker(p.Acceptable) {
			return Value{}, fmt.Sprintf("the answer requires %s, which the schema does not have", p.Name)
		}
	}
	props, _ := params.Get("properties")
	var args []Member
	for _, m := range props.Members() {
		exp := want.param(m.Key)
		switch {
		case exp == nil && required[m.Key]:
			return Value{}, fmt.Sprintf("the schema requires %s, which the answer does not list", m.Key)
		case exp == nil, !required[m.Key] && hasMarker(exp.Acceptable):
			continue // not sent
		}
		v, ok, err := admittedValue(fn.param(m.Key), m.Value, exp.Acceptable)
		if err != nil {
			return Value{}, fmt.Sprintf("%s: %v", m.Key, err)
		}
		if !ok {
			return Value{}, fmt.Sprintf("no acceptable value of %s fits its schema %s (acceptable: %s)", m.Key, m.Value, List(exp.Acceptable...))
		}
		args = append(args, Member{m.Key, v})
	}
	whole := Map(args...)
	g, _, err := grammar.FromJSONSchema(tool.Function.Parameters, grammar.Options{})
	if err != nil {
		return Value{}, err.Error()
	}
	if !g.Match(whole.String()) {
		return Value{}, fmt.Sprintf("the arguments %s do not fit the parameters' schema", whole)
	}
	return whole, ""
}

// admittedValue is the first candidate for a parameter that both its
// schema's grammar and the checker accept. The candidates: the acceptable
// values in order (an object alternative as each key's first value, a list
// of them likewise); when the list has the "" marker, the values that match
// it (an empty string, an empty list); and the schema's enum values, which
// the checker may take for an answer that differs only in what it
// normalises away ("Horror" for "horror").
func admittedValue(p *Param, schema Value, acceptable []Value) (Value, bool, error) {
	g, _, err := grammar.FromJSONSchema(schema.AppendJSON(nil), grammar.Options{})
	if err != nil {
		return Value{}, false, err
	}
	var candidates []Value
	for _, a := range acceptable {
		if !a.isEmptyMarker() {
			candidates = append(candidates, firstValues(schema, a))
		}
	}
	if hasMarker(acceptable) {
		candidates = append(candidates, String(""), List())
	}
	enum, _ := schema.Get("enum")
	candidates = append(candidates, enum.Items()...)
	for _, c := range candidates {
		if !g.Match(c.String()) {
			continue
		}
		v := c
		if p.Type == TypeFloat && v.Kind() == KindInt {
			v = v.asFloat()
		}
		if checkValue(p, v, acceptable).Pass {
			return c, true, nil
		}
	}
	return Value{}, false, nil
}

// firstValues is an alternative as a value to send, for a parameter of the
// given schema: an object of per-key acceptable lists becomes an object of
// each key's first value (keys with only "" left out), its members in the
// schema's order (the order the grammar admits; keys the schema lacks after
// them); a list of such objects likewise; anything else is itself.
func firstValues(schema, alt Value) Value {
	switch alt.Kind() {
	case KindMap:
		var mems []Member
		for _, m := range alt.Members() {
			if m.Value.Kind() != KindList {
				return alt // not the per-key form: a literal object
			}
			for _, v := range m.Value.Items() {
				if !v.isEmptyMarker() {
					mems = append(mems, Member{m.Key, v})
					break
				}
			}
		}
		return Map(inSchemaOrder(schema, mems)...)
	case KindList:
		if len(alt.Items()) == 0 || alt.Items()[0].Kind() != KindMap {
			return alt
		}
		itemSchema, _ := schema.Get("items")
		items := make([]Value, len(alt.Items()))
		for i, x := range alt.Items() {
			items[i] = firstValues(itemSchema, x)
		}
		return List(items...)
	}
	return alt
}

// inSchemaOrder sorts members by the schema's properties, others last.
func inSchemaOrder(schema Value, mems []Member) []Member {
	props, _ := schema.Get("properties")
	out := make([]Member, 0, len(mems))
	for _, p := range props.Members() {
		for _, m := range mems {
			if m.Key == p.Key {
				out = append(out, m)
			}
		}
	}
	for _, m := range mems {
		if _, ok := props.Get(m.Key); !ok {
			out = append(out, m)
		}
	}
	return out
}
