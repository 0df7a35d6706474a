package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
)

// Sampled comparison (dragoman diff --samples N): at a temperature above 0
// two runs of one request differ anyway, so one answer from each side says
// little. Each side answers the request N times (seeds seed, seed+1, …) and
// the rates are compared: how often a call came back parsed, how often the
// call was left as text (a function's name in the answer, no call parsed:
// the parser missed it), how often the side failed. Fisher's exact test says
// whether the two sides' call rates differ by more than sampling explains.

// sampleStats is one side's N answers.
type sampleStats struct {
	Spec    string         `json:"spec"`
	Runtime string         `json:"runtime"`
	Mode    string         `json:"mode"`
	Samples int            `json:"samples"`
	Calls   int            `json:"with_calls"`    // answers with at least one parsed call
	AsText  int            `json:"calls_as_text"` // answers with no call parsed but a tool's name in the text
	Errors  int            `json:"errors"`
	Names   map[string]int `json:"call_names"` // calls per function name
	// Prompt and PromptTokens are the first answer's: every sample renders
	// the same prompt (only the seed changes).
	Prompt       string `json:"-"`
	PromptTokens int    `json:"prompt_tokens"`
}

type samplesReport struct {
	A, B *sampleStats
	// P is Fisher's exact test's two-sided p-value for the call rates.
	P       float64 `json:"p_value"`
	Verdict string  `json:"verdict"`
}

// runSamples asks each side n times and compares the rates.
func runSamples(specs []string, templates [2]string, req map[string]json.RawMessage, n int, e *env) (*samplesReport, error) {
	seed := int64(1)
	if raw, ok := req["seed"]; ok {
		_ = json.Unmarshal(raw, &seed)
	}
	names := toolNames(req)
	rep := &samplesReport{}
	for k, spec := range specs {
		st := &sampleStats{Spec: spec, Samples: n, Names: map[string]int{}}
		for i := range n {
			r := make(map[string]json.RawMessage, len(req)+1)
			for key, v := range req {
				r[key] = v
			}
			r["seed"], _ = json.Marshal(seed + int64(i))
			side, err := runSide(spec, templates[k], r, e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", spec, err)
			}
			if i == 0 {
				st.Runtime, st.Mode, st.Prompt, st.PromptTokens = side.Runtime, side.Mode, side.Prompt, side.PromptTokens
			}
			switch {
			case side.Error != "":
				st.Errors++
			case len(side.Calls) > 0:
				st.Calls++
				for _, c := range side.Calls {
					st.Names[c.Name]++
				}
			case mentionsAny(side.Content+"\n"+side.Completion, names):
				st.AsText++
			}
		}
		if k == 0 {
			rep.A = st
		} else {
			rep.B = st
		}
	}
	compareSamples(rep)
	return rep, nil
}

// compareSamples sets the p-value and the verdict: "error" when every sample
// of a side failed; "prompt differs" as for
// one answer; "parser gap" when the call rates differ and the side with
// fewer calls left some as text; "call rates differ" when they differ
// otherwise; "same" when the difference is within sampling noise (p ≥ 0.05).
func compareSamples(rep *samplesReport) {
	a, b := rep.A, rep.B
	rep.P = fisherExact(a.Calls, a.Samples-a.Calls, b.Calls, b.Samples-b.Calls)
	fewer := b
	if a.Calls < b.Calls {
		fewer = a
	}
	switch {
	case a.Errors == a.Samples || b.Errors == b.Samples:
		rep.Verdict = "error" // a side that never answered compares with nothing
	case a.Prompt != "" && b.Prompt != "" && a.Prompt != b.Prompt,
		(a.Prompt == "" || b.Prompt == "") && a.PromptTokens > 0 && b.PromptTokens > 0 && a.PromptTokens != b.PromptTokens:
		rep.Verdict = "prompt differs"
	case rep.P < 0.05 && fewer.AsText > 0:
		rep.Verdict = "parser gap"
	case rep.P < 0.05:
		rep.Verdict = "call rates differ"
	default:
		rep.Verdict = "same"
	}
}

// fisherExact is the two-sided p-value of Fisher's exact test on the table
// [[a b] [c d]]: the probability, with the margins fixed, of a table at most
// as likely as this one.
func fisherExact(a, b, c, d int) float64 {
	row1, col1, n := a+b, a+c, a+b+c+d
	if n == 0 {
		return 1
	}
	lfact := func(k int) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
	logp := func(x int) float64 { // P(top-left cell = x)
		return lfact(row1) + lfact(n-row1) + lfact(col1) + lfact(n-col1) -
			lfact(n) - lfact(x) - lfact(row1-x) - lfact(col1-x) - lfact(n-row1-col1+x)
	}
	observed := logp(a)
	p := 0.0
	for x := max(0, row1+col1-n); x <= min(row1, col1); x++ {
		if lp := logp(x); lp <= observed+1e-9 {
			p += math.Exp(lp)
		}
	}
	return min(p, 1)
}

// toolNames are the names of the request's tools.
func toolNames(req map[string]json.RawMessage) []string {
	var tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	_ = json.Unmarshal(req["tools"], &tools)
	var out []string
	for _, t := range tools {
		if t.Function.Name != "" {
			out = append(out, t.Function.Name)
		}
	}
	return out
}

func mentionsAny(s string, names []string) bool {
	for _, n := range names {
		if strings.Contains(s, n) {
			return true
		}
	}
	return false
}

// printSamples writes the human-readable report.
func printSamples(w io.Writer, rep *samplesReport) {
	for _, s := range []struct {
		name string
		st   *sampleStats
	}{{"A", rep.A}, {"B", rep.B}} {
		st := s.st
		fmt.Fprintf(w, "%s: %s (%s, %s mode): %d samples: %d with calls, %d with a call left as text, %d errors",
			s.name, st.Spec, st.Runtime, st.Mode, st.Samples, st.Calls, st.AsText, st.Errors)
		if len(st.Names) > 0 {
			var names []string
			for n, c := range st.Names {
				names = append(names, fmt.Sprintf("%s %d", n, c))
			}
			sort.Strings(names)
			fmt.Fprintf(w, " (calls: %s)", strings.Join(names, ", "))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\ncall rates: Fisher's exact test p = %.3g\nverdict: %s\n", rep.P, rep.Verdict)
}
