// Package bench holds the suites `dragoman bench` runs and the checker that
// scores a model's calls: BFCL's single-turn categories, scored exactly as
// BFCL's AST checker scores them (docs/BENCH.md, and the staged data's
// FORMAT.md, which the rules here follow section by section), and user
// suites in a JSON Lines format that loads into the same items.
package bench

import (
	"fmt"

	"github.com/dragoman-dev/dragoman/chat"
)

// Item is one question of a suite: what is sent, and what counts as right.
type Item struct {
	ID       string
	Category string
	// Messages are the question's turns (BFCL: the first turn only).
	Messages []chat.Message
	// Tools are the offered functions as JSON Schema tools; Functions is the
	// checker's view of the same tools, in the same order.
	Tools     []chat.Tool
	Functions []Function
	Expected  Expected
}

// Mode is how an item's answer is checked (FORMAT.md §7.1, §8).
type Mode string

const (
	// ModeSimple: exactly one call, checked against the only offered function.
	ModeSimple Mode = "simple"
	// ModeMultiple: exactly one call, of the function the answer names.
	ModeMultiple Mode = "multiple"
	// ModeParallel: as many calls as the answer has, in any order.
	ModeParallel Mode = "parallel"
	// ModeNoCall: right when the model makes no call (irrelevance).
	ModeNoCall Mode = "no_call"
	// ModeAnyCall: right when the model makes any call at all (relevance).
	ModeAnyCall Mode = "any_call"
)

// Expected is an item's answer.
type Expected struct {
	Mode Mode
	// Calls are the expected calls (none for ModeNoCall and ModeAnyCall).
	Calls []ExpectedCall
}

// ExpectedCall is one call of the answer: a function and, per parameter,
// the values accepted.
type ExpectedCall struct {
	Name   string
	Params []ExpectedParam
}

// ExpectedParam is one parameter's acceptable list. The empty string in it
// is a marker meaning "may be omitted" (FORMAT.md §5.2); an empty list can
// never be satisfied.
type ExpectedParam struct {
	Name       string
	Acceptable []Value
}

func (c *ExpectedCall) param(name string) *ExpectedParam {
	for i := range c.Params {
		if c.Params[i].Name == name {
			return &c.Params[i]
		}
	}
	return nil
}

// function is the offered function named name.
func (it *Item) function(name string) *Function {
	for i := range it.Functions {
		if it.Functions[i].Name == name {
			return &it.Functions[i]
		}
	}
	return nil
}

// validate checks what the checker relies on: every expected call names an
// offered function; a simple item offers one and expects one call.
func (it *Item) validate() error {
	switch it.Expected.Mode {
	case ModeNoCall, ModeAnyCall:
		return nil
	case ModeSimple:
		if len(it.Functions) != 1 || len(it.Expected.Calls) != 1 {
			return fmt.Errorf("%s: a simple item offers %d functions and expects %d calls, not 1 and 1", it.ID, len(it.Functions), len(it.Expected.Calls))
		}
	case ModeMultiple:
		if len(it.Expected.Calls) != 1 {
			return fmt.Errorf("%s: a multiple item expects %d calls, not 1", it.ID, len(it.Expected.Calls))
		}
	case ModeParallel:
	default:
		return fmt.Errorf("%s: unknown mode %q", it.ID, it.Expected.Mode)
	}
	if len(it.Expected.Calls) == 0 {
		return fmt.Errorf("%s: no expected calls", it.ID)
	}
	for _, c := range it.Expected.Calls {
		if it.function(c.Name) == nil {
			return fmt.Errorf("%s: the expected call %s names no offered function", it.ID, c.Name)
		}
	}
	return nil
}

// Suite is a named list of items.
type Suite struct {
	Name  string
	Items []Item
}

// Categories are the suite's categories in first-seen order.
func (s *Suite) Categories() []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range s.Items {
		if !seen[it.Category] {
			seen[it.Category] = true
			out = append(out, it.Category)
		}
	}
	return out
}
