package bench

import (
	"bytes"
	_ "embed"
)

// probesJSONL is the built-in probe suite, in the user-suite format (it is
// also that format's longest example).
//
//go:embed suites/probes.jsonl
var probesJSONL []byte

// Probes is the built-in suite of the small-model probes #20 names, each a
// pair of categories that differ in one thing, over the same questions:
//
//   - probe_tools_1 / probe_tools_13: a weather question with its one tool,
//     and with the same tool among twelve others;
//   - probe_choice_text / probe_choice_enum: a closed choice (a thermostat's
//     mode) described in the text, and given as an enum;
//   - probe_foreign_param: a question mentioning a detail that is a
//     parameter of another offered tool, which the right call must not take.
func Probes() *Suite {
	s, err := ReadSuite(bytes.NewReader(probesJSONL), "probes")
	if err != nil {
		panic("bench: the built-in probe suite does not load: " + err.Error())
	}
	return s
}
