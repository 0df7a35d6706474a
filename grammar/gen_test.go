package grammar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The generative test: random JSON Schemas (seeded, bounded depth) and random instances. Valid instances,
// written compactly, with random allowed whitespace and through json.Indent, must match and every prefix
// of them must be a prefix; instances mutated at a place the schema decides alone (wrong type, missing
// required member, extra member where none is allowed, enum violation, string too long or too short,
// too few or too many items, broken JSON) must not match.

type gschema struct {
	kind     string // string number integer boolean null enum const object freeform array anyOf ref types any
	minLen   int
	maxLen   int // -1: none
	enum     []*jvalue
	props    []gprop
	addl     int // 0 absent, 1 false, 2 true, 3 schema
	addlS    *gschema
	items    *gschema
	minItems int
	maxItems int // -1: none
	branches []*gschema
	ref      string
	types    []string
}

type gprop struct {
	name     string
	s        *gschema
	required bool
}

type gen struct {
	r    *rand.Rand
	defs map[string]*gschema
	def  []string
}

var (
	propNames = []string{"a", "name", "city", "x_1", "名前", `q"uote`, "back\\slash", "a<b", "unit", "items", "n"}
	strChars  = []rune{'a', 'b', 'Z', ' ', '"', '\\', '/', '\n', '\t', '\x01', 'é', '😀', '<', '&', '\u2028', '\x7f'}
	enumPool  = []string{`"red"`, `"a\"b"`, `"<&>"`, `"é\n"`, `1.50`, `-3`, `true`, `false`, `null`, `{"k":[1,"x"]}`, `[]`, `""`}
)

func (g *gen) schema(depth int) *gschema {
	leaf := []string{"string", "string", "number", "integer", "boolean", "null", "enum", "const", "any", "types"}
	all := append(leaf, "object", "object", "object", "array", "array", "anyOf", "freeform")
	if len(g.def) > 0 {
		all = append(all, "ref")
	}
	kinds := all
	if depth >= 3 {
		kinds = leaf
	}
	s := &gschema{kind: kinds[g.r.IntN(len(kinds))], maxLen: -1, maxItems: -1}
	switch s.kind {
	case "string":
		if g.r.IntN(2) == 0 {
			s.minLen = g.r.IntN(4)
		}
		if g.r.IntN(2) == 0 {
			s.maxLen = s.minLen + g.r.IntN(5)
		}
	case "enum", "const":
		n := 1
		if s.kind == "enum" {
			n += g.r.IntN(4)
		}
		seen := map[string]bool{}
		for range n {
			v := enumPool[g.r.IntN(len(enumPool))]
			if !seen[v] {
				seen[v] = true
				_, jv, _ := readJSON(v) // kept: the reader is not released
				s.enum = append(s.enum, jv)
			}
		}
	case "types":
		s.types = [][]string{{"string", "integer"}, {"null", "boolean"}, {"number", "string", "null"}}[g.r.IntN(3)]
		if g.r.IntN(2) == 0 {
			s.maxLen = g.r.IntN(4)
		}
	case "object":
		used := map[string]bool{}
		for range g.r.IntN(5) {
			name := propNames[g.r.IntN(len(propNames))]
			if used[name] {
				continue
			}
			used[name] = true
			s.props = append(s.props, gprop{name: name, s: g.schema(depth + 1), required: g.r.IntN(2) == 0})
		}
		s.addl = g.r.IntN(4)
		if s.addl == 3 {
			s.addlS = g.schema(3)
		}
	case "array":
		s.items = g.schema(depth + 1)
		if g.r.IntN(2) == 0 {
			s.minItems = g.r.IntN(3)
		}
		if g.r.IntN(2) == 0 {
			s.maxItems = s.minItems + g.r.IntN(3)
		}
	case "anyOf":
		for range 2 + g.r.IntN(2) {
			s.branches = append(s.branches, g.schema(depth+1))
		}
	case "ref":
		s.ref = g.def[g.r.IntN(len(g.def))]
	}
	return s
}

// document makes a root schema, maybe with $defs (one of them recursive through an optional member).
func (g *gen) document() (*gschema, string) {
	g.defs = map[string]*gschema{}
	g.def = nil
	if g.r.IntN(2) == 0 {
		g.defs["leaf"] = g.schema(2)
		g.def = append(g.def, "leaf")
		if g.r.IntN(2) == 0 {
			tree := &gschema{kind: "object", maxLen: -1, maxItems: -1, addl: 1}
			g.defs["tree"] = tree
			g.def = append(g.def, "tree")
			tree.props = []gprop{
				{name: "v", s: &gschema{kind: "integer", maxLen: -1, maxItems: -1}, required: true},
				{name: "kids", s: &gschema{kind: "array", maxLen: -1, maxItems: 3, items: &gschema{kind: "ref", ref: "tree"}}},
			}
		}
	}
	root := g.schema(0)
	var b strings.Builder
	writeSchema(&b, root, g.defs)
	return root, b.String()
}

func writeSchema(b *strings.Builder, s *gschema, defs map[string]*gschema) {
	b.WriteString("{")
	first := true
	kv := func(k, v string) {
		if !first {
			b.WriteString(",")
		}
		first = false
		b.WriteString(strconv.Quote(k) + ":" + v)
	}
	sub := func(s *gschema) string {
		var sb strings.Builder
		writeSchema(&sb, s, nil)
		return sb.String()
	}
	switch s.kind {
	case "string", "number", "integer", "boolean", "null":
		kv("type", strconv.Quote(s.kind))
	case "types":
		t, _ := json.Marshal(s.types)
		kv("type", string(t))
	case "enum":
		var vs []string
		for _, v := range s.enum {
			vs = append(vs, string(appendJSON(nil, v)))
		}
		kv("enum", "["+strings.Join(vs, ",")+"]")
	case "const":
		kv("const", string(appendJSON(nil, s.enum[0])))
	case "object":
		kv("type", `"object"`)
		var ps, req []string
		for _, p := range s.props {
			ps = append(ps, string(appendJSONString(nil, p.name))+":"+sub(p.s))
			if p.required {
				req = append(req, string(appendJSONString(nil, p.name)))
			}
		}
		kv("properties", "{"+strings.Join(ps, ",")+"}")
		if len(req) > 0 {
			kv("required", "["+strings.Join(req, ",")+"]")
		}
		switch s.addl {
		case 1:
			kv("additionalProperties", "false")
		case 2:
			kv("additionalProperties", "true")
		case 3:
			kv("additionalProperties", sub(s.addlS))
		}
	case "freeform":
		kv("type", `"object"`)
	case "array":
		kv("type", `"array"`)
		kv("items", sub(s.items))
	case "anyOf":
		var bs []string
		for _, br := range s.branches {
			bs = append(bs, sub(br))
		}
		kv("anyOf", "["+strings.Join(bs, ",")+"]")
	case "ref":
		kv("$ref", strconv.Quote("#/$defs/"+s.ref))
	}
	if s.minLen > 0 {
		kv("minLength", strconv.Itoa(s.minLen))
	}
	if s.maxLen >= 0 {
		kv("maxLength", strconv.Itoa(s.maxLen))
	}
	if s.minItems > 0 {
		kv("minItems", strconv.Itoa(s.minItems))
	}
	if s.maxItems >= 0 {
		kv("maxItems", strconv.Itoa(s.maxItems))
	}
	kv("description", `"generated"`)
	if len(defs) > 0 {
		var ds []string
		for _, name := range []string{"leaf", "tree"} {
			if d, ok := defs[name]; ok {
				ds = append(ds, strconv.Quote(name)+":"+sub(d))
			}
		}
		kv("$defs", "{"+strings.Join(ds, ",")+"}")
	}
	b.WriteString("}")
}

// inst is an instance: a leaf holds its JSON text (kept as is by every writer), an object or array its
// parts. exact marks a compound value that came from an enum and must stay compact.
type inst struct {
	raw       string
	obj, arr  bool
	keys      []string
	vals      []*inst
	exactComp bool
}

func leafOf(v any) *inst {
	b, err := json.Marshal(v) // encoding/json, HTML escaping on: the grammar accepts any escape
	if err != nil {
		panic(err)
	}
	return &inst{raw: string(b)}
}

func (g *gen) randString(min, max int) string {
	if max < 0 {
		max = min + 6
	}
	n := min + g.r.IntN(max-min+1)
	rs := make([]rune, n)
	for i := range rs {
		rs[i] = strChars[g.r.IntN(len(strChars))]
	}
	return string(rs)
}

func (g *gen) anyValue(depth int) *inst {
	switch k := g.r.IntN(7); {
	case k == 0 && depth < 2:
		o := &inst{obj: true}
		for i := range g.r.IntN(3) {
			o.keys = append(o.keys, "k"+strconv.Itoa(i))
			o.vals = append(o.vals, g.anyValue(depth+1))
		}
		return o
	case k == 1 && depth < 2:
		a := &inst{arr: true}
		for range g.r.IntN(3) {
			a.vals = append(a.vals, g.anyValue(depth+1))
		}
		return a
	case k == 2:
		return leafOf(g.randString(0, 4))
	case k == 3:
		return leafOf(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(30)-10)))
	case k == 4:
		return leafOf(g.r.Int64() >> g.r.IntN(63))
	case k == 5:
		return leafOf(g.r.IntN(2) == 0)
	}
	return &inst{raw: "null"}
}

func (g *gen) valid(s *gschema, depth int) *inst {
	switch s.kind {
	case "string":
		return leafOf(g.randString(s.minLen, s.maxLen))
	case "number":
		switch g.r.IntN(3) {
		case 0:
			return leafOf(g.r.IntN(1000) - 500)
		case 1:
			return leafOf(g.r.NormFloat64() * math.Pow(10, float64(g.r.IntN(44)-22)))
		}
		return leafOf(g.r.Float64())
	case "integer":
		n := g.r.Int64() >> g.r.IntN(63)
		if g.r.IntN(2) == 0 {
			n = -n
		}
		return leafOf(n)
	case "boolean":
		return leafOf(g.r.IntN(2) == 0)
	case "null":
		return &inst{raw: "null"}
	case "enum", "const":
		v := s.enum[g.r.IntN(len(s.enum))]
		return &inst{raw: string(appendJSON(nil, v)), exactComp: v.kind == jObject || v.kind == jArray}
	case "types":
		switch t := s.types[g.r.IntN(len(s.types))]; t {
		case "string":
			return leafOf(g.randString(0, s.maxLen))
		default:
			return g.valid(&gschema{kind: t, maxLen: -1, maxItems: -1}, depth)
		}
	case "any":
		return g.anyValue(1)
	case "freeform":
		o := &inst{obj: true}
		for i := range g.r.IntN(3) {
			o.keys = append(o.keys, "k"+strconv.Itoa(i))
			o.vals = append(o.vals, g.anyValue(1))
		}
		return o
	case "ref":
		return g.valid(g.defs[s.ref], depth+1)
	case "anyOf":
		return g.valid(s.branches[g.r.IntN(len(s.branches))], depth)
	case "array":
		max := s.maxItems
		if max < 0 {
			max = s.minItems + 3
		}
		if depth > 6 {
			max = s.minItems
		}
		a := &inst{arr: true}
		for range s.minItems + g.r.IntN(max-s.minItems+1) {
			a.vals = append(a.vals, g.valid(s.items, depth+1))
		}
		return a
	}
	// object
	o := &inst{obj: true}
	for _, p := range s.props {
		if p.required || g.r.IntN(2) == 0 && depth < 6 {
			o.keys = append(o.keys, p.name)
			o.vals = append(o.vals, g.valid(p.s, depth+1))
		}
	}
	if s.addl >= 2 {
		for i := range g.r.IntN(3) {
			o.keys = append(o.keys, "extra"+strconv.Itoa(i))
			if s.addl == 3 {
				o.vals = append(o.vals, g.valid(s.addlS, depth+1))
			} else {
				o.vals = append(o.vals, g.anyValue(1))
			}
		}
	}
	return o
}

// write writes v; ws, when set, gives the whitespace to put between two tokens.
func write(b *strings.Builder, v *inst, ws func() string) {
	sp := func() {
		if ws != nil {
			b.WriteString(ws())
		}
	}
	switch {
	case v.obj:
		b.WriteString("{")
		sp()
		for i, k := range v.keys {
			if i > 0 {
				b.WriteString(",")
				sp()
			}
			b.Write(appendJSONString(nil, k))
			sp()
			b.WriteString(":")
			sp()
			write(b, v.vals[i], ws)
			sp()
		}
		b.WriteString("}")
	case v.arr:
		b.WriteString("[")
		sp()
		for i, e := range v.vals {
			if i > 0 {
				b.WriteString(",")
				sp()
			}
			write(b, e, ws)
			sp()
		}
		b.WriteString("]")
	default:
		b.WriteString(v.raw)
	}
}

func hasExactCompound(v *inst) bool {
	if v.exactComp {
		return true
	}
	for _, e := range v.vals {
		if hasExactCompound(e) {
			return true
		}
	}
	return false
}

func encode(v *inst, ws func() string) string {
	var b strings.Builder
	write(&b, v, ws)
	return b.String()
}

// site is a place in an instance whose validity its schema alone decides.
type site struct {
	v *inst
	s *gschema
}

func (g *gen) sites(v *inst, s *gschema, out []site) []site {
	for s.kind == "ref" {
		s = g.defs[s.ref]
	}
	out = append(out, site{v, s})
	switch {
	case s.kind == "object" && v.obj && s.addl <= 1:
		// (Where further members are allowed, a declared name is not kept from them: see AddSchema.)
		for i, k := range v.keys {
			for _, p := range s.props {
				if p.name == k {
					out = g.sites(v.vals[i], p.s, out)
				}
			}
		}
	case s.kind == "array" && v.arr:
		for _, e := range v.vals {
			out = g.sites(e, s.items, out)
		}
	}
	return out
}

// mutate breaks the instance at one site and says how; "" when this site has nothing to break.
func (g *gen) mutate(st site) string {
	v, s := st.v, st.s
	var options []func() string
	wrong := map[string]string{"string": "123", "number": `"s"`, "integer": "1.5", "boolean": "1", "null": "0", "object": "[]", "array": "{}"}
	if w, ok := wrong[s.kind]; ok {
		options = append(options, func() string { *v = inst{raw: w}; return "wrong type" })
	}
	switch s.kind {
	case "enum", "const":
		options = append(options, func() string { *v = inst{raw: `"zz-not-in-enum"`}; return "enum violation" })
	case "string":
		if s.maxLen >= 0 {
			options = append(options, func() string { *v = *leafOf(strings.Repeat("a", s.maxLen+1)); return "string too long" })
		}
		if s.minLen > 0 {
			options = append(options, func() string { *v = *leafOf(strings.Repeat("é", s.minLen-1)); return "string too short" })
		}
	case "array":
		if s.minItems > 0 && len(v.vals) >= s.minItems {
			options = append(options, func() string { v.vals = v.vals[:s.minItems-1]; return "too few items" })
		}
		if s.maxItems >= 0 && len(v.vals) > 0 {
			options = append(options, func() string {
				for len(v.vals) <= s.maxItems {
					v.vals = append(v.vals, v.vals[0])
				}
				return "too many items"
			})
		}
	case "object":
		for i, k := range v.keys {
			for _, p := range s.props {
				if p.name == k && p.required {
					options = append(options, func() string {
						v.keys = append(v.keys[:i:i], v.keys[i+1:]...)
						v.vals = append(v.vals[:i:i], v.vals[i+1:]...)
						return "missing required " + k
					})
				}
			}
		}
		if s.addl <= 1 {
			options = append(options, func() string {
				v.keys = append(v.keys, "zz_extra")
				v.vals = append(v.vals, &inst{raw: "1"})
				return "extra member"
			})
		}
	}
	if len(options) == 0 {
		return ""
	}
	return options[g.r.IntN(len(options))]()
}

func (g *gen) randomWS() func() string {
	return func() string {
		switch g.r.IntN(4) {
		case 0:
			return " "
		case 1:
			ind := make([]byte, g.r.IntN(MaxIndent+1))
			for i := range ind {
				ind[i] = " \t"[g.r.IntN(2)]
			}
			return "\n" + string(ind)
		}
		return ""
	}
}

// checkSeed runs the whole property for one seed and returns what failed.
func checkSeed(seed uint64, instances int) []string {
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x5eed))}
	s, text := g.document()
	var fails []string
	gr, _, err := FromJSONSchema(json.RawMessage(text), Options{})
	if err != nil {
		return []string{fmt.Sprintf("schema %s: %v", text, err)}
	}
	if err := gr.Check(); err != nil {
		return []string{fmt.Sprintf("schema %s: Check: %v", text, err)}
	}
	if p, err := Parse(gr.String()); err != nil || p.String() != gr.String() {
		fails = append(fails, fmt.Sprintf("schema %s: grammar does not round-trip (%v)", text, err))
	}
	for range instances {
		v := g.valid(s, 0)
		compact := encode(v, nil)
		forms := []string{compact, encode(v, g.randomWS())}
		if !hasExactCompound(v) {
			var ind bytes.Buffer
			if err := json.Indent(&ind, []byte(compact), "", "  "); err == nil && !strings.Contains(ind.String(), strings.Repeat(" ", MaxIndent+1)) {
				forms = append(forms, ind.String())
			}
		}
		for _, f := range forms {
			if !gr.Match(f) {
				fails = append(fails, fmt.Sprintf("schema %s\nvalid instance rejected: %s", text, f))
			}
		}
		rs := []rune(compact)
		step := 1 + len(rs)/40
		for i := 0; i < len(rs); i += step {
			if !gr.Prefix(string(rs[:i])) {
				fails = append(fails, fmt.Sprintf("schema %s\nprefix of %s rejected: %s", text, compact, string(rs[:i])))
				break
			}
		}
		// Broken JSON.
		for _, broken := range []string{compact + "}", compact + ","} {
			if gr.Match(broken) {
				fails = append(fails, fmt.Sprintf("schema %s\nbroken JSON accepted: %s", text, broken))
			}
		}
		if len(rs) > 1 && (rs[0] == '{' || rs[0] == '[') {
			if b := string(rs[:1]) + "," + string(rs[1:]); gr.Match(b) {
				fails = append(fails, fmt.Sprintf("schema %s\nbroken JSON accepted: %s", text, b))
			}
		}
		// One mutation at a site the schema decides.
		sites := g.sites(v, s, nil)
		st := sites[g.r.IntN(len(sites))]
		if how := g.mutate(st); how != "" {
			m := encode(v, nil)
			if gr.Match(m) {
				fails = append(fails, fmt.Sprintf("schema %s\n%s accepted: %s (was %s)", text, how, m, compact))
			}
		}
	}
	return fails
}

func TestGeneratedSchemas(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 60
	}
	failed := 0
	for seed := range uint64(seeds) {
		for _, f := range checkSeed(seed, 8) {
			t.Errorf("seed %d: %s", seed, f)
			if failed++; failed > 20 {
				t.Fatal("too many failures")
			}
		}
	}
}

func FuzzSchemaInstances(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 1 << 40} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		for _, fail := range checkSeed(seed, 3) {
			t.Error(fail)
		}
	})
}
