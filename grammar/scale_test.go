package grammar

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Schemas of a given size, for the scaling benchmarks and the tests that
// check building stays linear in the schema's size (issue #16).

// enumSchema is a string enum of n distinct values.
func enumSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"string","enum":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"value-`)
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('"')
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// propsSchema is an object of n properties, every other one required; each
// property's schema is value (a JSON text).
func propsSchema(n int, value string) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`":`)
		b.WriteString(value)
	}
	b.WriteString(`},"required":[`)
	for i := 0; i < n; i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p`)
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('"')
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// anyOfSchema is an anyOf of n object branches, each with a member of its own.
func anyOfSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"anyOf":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"object","properties":{"k`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`":{"type":"integer"}},"required":["k`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`"]}`)
	}
	b.WriteString(`]}`)
	return json.RawMessage(b.String())
}

// sameNameSchema is an object of n properties whose names differ only in
// characters a rule name cannot hold, so that every property's rule has the
// same base name (hint-----): the rule names' numeric suffixes.
func sameNameSchema(n int) json.RawMessage {
	const chars = `!#$%&*+.,;:?@^~`
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	name := make([]byte, 5)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		for k, j := 0, i; k < len(name); k, j = k+1, j/len(chars) {
			name[k] = chars[j%len(chars)]
		}
		b.WriteByte('"')
		b.Write(name)
		b.WriteString(`":{"type":"array","items":{"type":"string"}}`)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// manyTools are n tools with small schemas of their own.
func manyTools(n int) []Tool {
	tools := make([]Tool, n)
	for i := range tools {
		tools[i] = Tool{Name: "tool_" + strconv.Itoa(i), Parameters: json.RawMessage(
			`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"array","items":{"type":"integer"}},"unit":{"enum":["c","f"]}},"required":["city"]}`)}
	}
	return tools
}

// scaleCases are the shapes whose building time must grow with the schema's
// size only.
func scaleCases() []struct {
	name   string
	schema json.RawMessage
} {
	return []struct {
		name   string
		schema json.RawMessage
	}{
		{"enum-1k", enumSchema(1000)},
		{"enum-10k", enumSchema(10_000)},
		{"enum-40k", enumSchema(40_000)},
		{"enum-200k", enumSchema(200_000)},
		{"props-1k", propsSchema(1000, `{"type":"string"}`)},
		{"props-1k-arrays", propsSchema(1000, `{"type":"array","items":{"type":"string"}}`)},
		{"props-10k", propsSchema(10_000, `{"type":"string"}`)},
		{"props-50k", propsSchema(50_000, `{"type":"string"}`)},
		{"anyOf-10k", anyOfSchema(10_000)},
		{"same-names-2k", sameNameSchema(2000)},
		{"same-names-20k", sameNameSchema(20_000)},
	}
}

// unbounded are options whose bounds the scaling cases stay within: they
// measure the converter's work, not its refusals.
var unbounded = Options{MaxEnum: 1 << 20, MaxNodes: 1 << 22, MaxBytes: 1 << 30}

// BenchmarkSchemaScale: FromJSONSchema on schemas of growing size (issue
// #16), past the default bounds. Before the fix, enum-40k took 11.4 s,
// enum-200k 395 s, props-50k 25 s and same-names-20k 83 s.
func BenchmarkSchemaScale(b *testing.B) {
	for _, c := range scaleCases() {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.schema)))
			for b.Loop() {
				if _, _, err := FromJSONSchema(c.schema, unbounded); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, n := range []int{100, 1000, 5000} {
		tools := manyTools(n)
		b.Run("tools-"+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Tools(tools, unbounded); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
