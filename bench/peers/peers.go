// Package peers compares dragoman's streaming parsers with Ollama's own
// (github.com/ollama/ollama/model/parsers) on the same outputs in the same
// chunks. It is a module of its own so that the main module never depends on
// Ollama.
package peers

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/format"
	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/parsers"
)

// Ollama's parsers log a warning through slog for each call they cannot
// parse; that would be timed with them (and floods the terminal), so it goes
// nowhere.
func init() { slog.SetDefault(slog.New(slog.NewTextHandler(io.Discard, nil))) }

// Pairs maps an Ollama parser name to the dragoman family that reads the same
// markup.
var Pairs = []struct{ Ollama, Family string }{
	{"qwen3", "hermes"},
	{"qwen3-coder", "qwen3-coder-xml"},
	{"harmony", "gpt-oss-harmony"},
	{"ministral", "mistral-v11-args"},
	{"deepseek3", "deepseek-v3.1"},
	{"olmo3", "olmo3"},
	{"functiongemma", "functiongemma"},
	{"glm-4.7", "glm-4.5-4.7"},
	{"gemma4", "gemma4"},
	{"lfm2", "lfm2"},
	{"laguna", "laguna"},
	{"cohere", "cohere-command"},
	{"glimmer", "muse-glimmer"},
}

// Case is one output to parse, from a family's own vectors.
type Case struct {
	Family, Ollama string
	Output         string
	Tools          []chat.Tool
	Think          bool // the prompt left reasoning open
}

type vector struct {
	Input   string `json:"input"`
	Notes   string `json:"notes"`
	Options struct {
		Think *bool       `json:"think"`
		Tools []chat.Tool `json:"tools"`
	} `json:"options"`
	Expected struct {
		ToolCalls []json.RawMessage `json:"tool_calls"`
	} `json:"expected"`
}

// LoadCase picks the family's representative output: its vector with text
// before and after a call if it has one, else its first vector with calls.
func LoadCase(root, family, ollama string) (Case, error) {
	f, err := os.Open(filepath.Join(root, "format", "testdata", "vectors", family+".jsonl"))
	if err != nil {
		return Case{}, err
	}
	defer f.Close()
	var first, before *vector
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		var v vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return Case{}, err
		}
		if len(v.Expected.ToolCalls) == 0 {
			continue
		}
		if first == nil {
			first = &v
		}
		if before == nil && strings.Contains(v.Notes, "text before") {
			before = &v
		}
	}
	v := before
	if v == nil {
		v = first
	}
	if v == nil {
		return Case{}, os.ErrNotExist
	}
	c := Case{Family: family, Ollama: ollama, Output: v.Input, Tools: v.Options.Tools}
	if family == "gpt-oss-harmony" {
		// <|call|> is a stop token: Ollama's runtime consumes it before the
		// parser sees the output (its parser fails on it); ours accepts the
		// output either way.
		c.Output = strings.TrimSuffix(c.Output, "<|call|>")
	}
	c.Think = v.Options.Think != nil && *v.Options.Think
	return c, nil
}

// Chunks splits s into n-byte chunks.
func Chunks(s string, n int) []string {
	var out []string
	for i := 0; i < len(s); i += n {
		out = append(out, s[i:min(i+n, len(s))])
	}
	return out
}

// TokenChunks splits s into chunks of n bytes, except that a special token
// (<|…|> or <｜…｜>) is never split: it is a chunk of its own, as a runtime
// delivers it. Ollama's parsers assume that (some release a partial special
// token as text); ours do not need it, but both sides get the same chunks.
func TokenChunks(s string, n int) []string {
	var out []string
	for i := 0; i < len(s); {
		if l := specialAt(s[i:]); l > 0 {
			out = append(out, s[i:i+l])
			i += l
			continue
		}
		j := i + 1
		for j < len(s) && j < i+n && specialAt(s[j:]) == 0 {
			j++
		}
		// Do not cut a UTF-8 character in two either: tokens hold whole ones.
		for j < len(s) && !utf8.RuneStart(s[j]) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// specialAt returns the length of the special token at the start of s, or 0.
func specialAt(s string) int {
	for _, p := range [][2]string{{"<|", "|>"}, {"<｜", "｜>"}} {
		if strings.HasPrefix(s, p[0]) {
			if k := strings.Index(s[len(p[0]):], p[1]); k >= 0 && k <= 64 && !strings.ContainsAny(s[len(p[0]):len(p[0])+k], "<>\n") {
				return len(p[0]) + k + len(p[1])
			}
		}
	}
	return 0
}

// Call is a parsed call, compared by name and decoded arguments.
type Call struct {
	Name string
	Args map[string]any
}

// ParseOurs parses c's output in the given chunks with dragoman, to its
// native result: OpenAI-shaped calls with arguments as JSON text.
func ParseOurs(c Case, chunks []string) format.Result {
	fam, _ := format.Lookup(c.Family)
	p := fam.New(format.Options{Tools: c.Tools, ReasoningOpen: c.Think})
	return format.Run(p, chunks...)
}

// Ours is ParseOurs with the calls decoded for comparison.
func Ours(c Case, chunks []string) (content string, calls []Call) {
	r := ParseOurs(c, chunks)
	for _, tc := range r.ToolCalls {
		var args map[string]any
		json.Unmarshal([]byte(tc.Function.Arguments), &args)
		calls = append(calls, Call{tc.Function.Name, args})
	}
	return r.Content, calls
}

func ollamaTools(tools []chat.Tool) []api.Tool {
	var out []api.Tool
	b, _ := json.Marshal(tools)
	json.Unmarshal(b, &out)
	return out
}

// ParseTheirs parses c's output in the given chunks with Ollama's parser, to
// its native result: content and api.ToolCall values.
func ParseTheirs(c Case, tools []api.Tool, chunks []string) (content string, calls []api.ToolCall, errs []error) {
	p := parsers.ParserForName(c.Ollama)
	// The prompt's reasoning state, said explicitly: Ollama's parsers start
	// in reasoning when the value is unset and the model thinks by default.
	p.Init(tools, nil, &api.ThinkValue{Value: c.Think})
	var sb strings.Builder
	add := func(s string, done bool) {
		ct, _, cs, err := p.Add(s, done)
		if err != nil {
			errs = append(errs, err)
		}
		sb.WriteString(ct)
		calls = append(calls, cs...)
	}
	for _, ch := range chunks {
		add(ch, false)
	}
	add("", true)
	return sb.String(), calls, errs
}

// Theirs is ParseTheirs with the calls decoded for comparison.
func Theirs(c Case, tools []api.Tool, chunks []string) (content string, calls []Call) {
	content, native, errs := ParseTheirs(c, tools, chunks)
	for _, err := range errs {
		calls = append(calls, Call{Name: "error: " + err.Error()})
	}
	for _, tc := range native {
		calls = append(calls, Call{tc.Function.Name, tc.Function.Arguments.ToMap()})
	}
	return content, calls
}

// Agree reports whether the two sides found the same calls (names and
// decoded arguments; numbers compared as JSON would).
func Agree(a, b []Call) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name {
			return false
		}
		x, _ := json.Marshal(a[i].Args)
		y, _ := json.Marshal(b[i].Args)
		var xa, ya any
		json.Unmarshal(x, &xa)
		json.Unmarshal(y, &ya)
		if !reflect.DeepEqual(xa, ya) {
			return false
		}
	}
	return true
}

// Long returns c with its call's first argument value ("Paris" or "UTC")
// replaced by size bytes of prose: a long call, streamed.
func Long(c Case, size int) Case {
	prose := strings.Repeat("lorem ipsum dolor sit amet ", size/27+1)[:size]
	for _, v := range []string{"Paris", "UTC"} {
		if strings.Contains(c.Output, v) {
			c.Output = strings.Replace(c.Output, v, prose, 1)
			break
		}
	}
	return c
}

// Result is one family's figures.
type Result struct {
	Family, Ollama           string
	Bytes                    int
	OursWhole, Ours4, Their4 float64 // MB/s
	AllocsPerChunk           float64 // ours, plain text
	Agree                    bool
	OursCalls, TheirCalls    int
	Note                     string
	// The long call (Long): ours and theirs in 4-byte chunks, and agreement.
	LongBytes             int
	LongOurs4, LongTheir4 float64
	LongAgree             bool
}

// timeIt returns the median over batches of the mean time of one run of f.
func timeIt(f func(), batches int, minBatch time.Duration) []time.Duration {
	var out []time.Duration
	for range batches {
		// Each batch starts from a collected heap: the collection the other
		// side's garbage set off is not run (nor its write barriers paid)
		// during this side's batch.
		runtime.GC()
		n := 0
		start := time.Now()
		for time.Since(start) < minBatch {
			f()
			n++
		}
		out = append(out, time.Since(start)/time.Duration(n))
	}
	return out
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func mbps(bytes int, d time.Duration) float64 { return float64(bytes) / d.Seconds() / 1e6 }

// LongSize is the length of the long call's argument.
const LongSize = 16 << 10

// PlainChunk is the prose of the allocation measurement.
const PlainChunk = "the quick brown fox jumps over the lazy dog."

// PlainAllocs is ours: allocations per plain-text chunk once the output is
// under way.
func PlainAllocs(family string) float64 {
	fam, _ := format.Lookup(family)
	var opts format.Options
	lead := ""
	switch family {
	case "muse-glimmer":
		lead = " to=user<|message|>"
	case "step3":
		opts.ReasoningDisabled = true
	}
	p := fam.New(opts)
	p.Feed(lead)
	for range 4 {
		p.Feed(PlainChunk)
	}
	return testing.AllocsPerRun(200, func() { p.Feed(PlainChunk) })
}

// Measure times one case, the sides taking turns batch by batch.
func Measure(c Case, batches int, minBatch time.Duration) Result {
	r := Result{Family: c.Family, Ollama: c.Ollama, Bytes: len(c.Output)}
	whole := []string{c.Output}
	four := TokenChunks(c.Output, 4)
	tools := ollamaTools(c.Tools)
	ourContent, ours := Ours(c, four)
	theirContent, theirs := Theirs(c, tools, four)
	r.OursCalls, r.TheirCalls = len(ours), len(theirs)
	r.Agree = Agree(ours, theirs)
	if r.Agree && strings.TrimSpace(ourContent) != strings.TrimSpace(theirContent) {
		r.Note = "content differs"
	}
	var dw, d4, dt []time.Duration
	for range batches {
		dw = append(dw, timeIt(func() { ParseOurs(c, whole) }, 1, minBatch)...)
		d4 = append(d4, timeIt(func() { ParseOurs(c, four) }, 1, minBatch)...)
		dt = append(dt, timeIt(func() { ParseTheirs(c, tools, four) }, 1, minBatch)...)
	}
	r.OursWhole, r.Ours4, r.Their4 = mbps(len(c.Output), median(dw)), mbps(len(c.Output), median(d4)), mbps(len(c.Output), median(dt))
	r.AllocsPerChunk = PlainAllocs(c.Family)

	long := Long(c, LongSize)
	lfour := TokenChunks(long.Output, 4)
	_, lo := Ours(long, lfour)
	_, lt := Theirs(long, tools, lfour)
	r.LongBytes, r.LongAgree = len(long.Output), Agree(lo, lt)
	var lo4, lt4 []time.Duration
	for range batches {
		lo4 = append(lo4, timeIt(func() { ParseOurs(long, lfour) }, 1, minBatch)...)
		lt4 = append(lt4, timeIt(func() { ParseTheirs(long, tools, lfour) }, 1, minBatch)...)
	}
	r.LongOurs4, r.LongTheir4 = mbps(len(long.Output), median(lo4)), mbps(len(long.Output), median(lt4))
	return r
}
