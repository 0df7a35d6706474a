package bench

import (
	"fmt"

	"github.com/dragoman-dev/dragoman/chat"
)

// ErrorKind names why an answer failed. The values are upstream's error
// types, so that a failure reads as BFCL's score files would report it.
type ErrorKind string

const (
	ErrDecode          ErrorKind = "ast_decoder:decoder_failed"              // no call, or arguments that are not JSON
	ErrOutputFormat    ErrorKind = "ast_decoder:decoder_wrong_output_format" // arguments that are JSON but not an object
	ErrSimpleCount     ErrorKind = "simple_function_checker:wrong_count"
	ErrMultipleCount   ErrorKind = "multiple_function_checker:wrong_count"
	ErrParallelCount   ErrorKind = "parallel_function_checker_no_order:wrong_count"
	ErrNoMatch         ErrorKind = "parallel_function_checker_no_order:cannot_find_match"
	ErrWrongName       ErrorKind = "simple_function_checker:wrong_func_name"
	ErrMissingRequired ErrorKind = "simple_function_checker:missing_required"
	ErrUnexpectedParam ErrorKind = "simple_function_checker:unexpected_param"
	ErrMissingOptional ErrorKind = "simple_function_checker:missing_optional"
	ErrType            ErrorKind = "type_error:simple"
	ErrNestedType      ErrorKind = "type_error:nested"
	ErrString          ErrorKind = "value_error:string"
	ErrList            ErrorKind = "value_error:list/tuple"
	ErrDictKey         ErrorKind = "value_error:dict_key"
	ErrDictValue       ErrorKind = "value_error:dict_value"
	ErrDictMissing     ErrorKind = "value_error:dict_items"
	ErrListDictCount   ErrorKind = "value_error:list_dict_count"
	ErrValue           ErrorKind = "value_error:others"
	ErrCallMade        ErrorKind = "irrelevance_error:decoder_success" // irrelevance: the model called
	ErrNoCallMade      ErrorKind = "relevance_error:decoder_failed"    // relevance: the model did not
)

// Result is one answer's verdict.
type Result struct {
	Pass bool
	// Kind and Message say why it failed (empty when it passed): the first
	// failure found, in the checker's order.
	Kind    ErrorKind
	Message string
}

var pass = Result{Pass: true}

func fail(kind ErrorKind, format string, args ...any) Result {
	return Result{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Options are what a run changes about checking.
type Options struct {
	// SanitizedNames: the tools were sent with dots in their names replaced
	// by underscores (SanitizedTools), so the calls must use those names;
	// the dotted ones then fail, as upstream's underscore_to_dot runs do.
	SanitizedNames bool
}

// Call is a model's call in the checker's form: a name and its arguments
// as an ordered map.
type Call struct {
	Name string
	Args Value
}

// Check scores the model's calls for an item. calls are as Dragoman's
// parsers and chat.Response give them (arguments as JSON text); none means
// the model answered in text — or did not answer, which upstream scores the
// same way (a fail, but a pass on irrelevance: FORMAT.md §8).
func Check(it *Item, calls []chat.ToolCall, opt Options) Result {
	switch it.Expected.Mode {
	case ModeNoCall:
		return checkNoCall(calls)
	case ModeAnyCall:
		return checkAnyCall(calls)
	}
	out, res := DecodeCalls(calls)
	if !res.Pass {
		return res
	}
	return CheckCalls(it, out, opt)
}

// CheckCalls is Check for calls already decoded (item's mode not no_call or
// any_call, which look at the undecoded calls).
func CheckCalls(it *Item, out []Call, opt Options) Result {
	switch it.Expected.Mode {
	case ModeSimple:
		return checkSimple(it, out, opt)
	case ModeMultiple:
		return checkMultiple(it, out, opt)
	case ModeParallel:
		return checkParallel(it, out, opt)
	}
	return fail(ErrDecode, "mode %q has no call checker", it.Expected.Mode)
}

// DecodeCalls turns tool calls into the checker's form, as upstream's
// function-calling handler does: each call's arguments parsed as JSON, which
// must give an object (FORMAT.md §6.1, §6.2).
func DecodeCalls(calls []chat.ToolCall) ([]Call, Result) {
	if len(calls) == 0 {
		return nil, fail(ErrDecode, "no tool call in the answer")
	}
	out := make([]Call, len(calls))
	for i, c := range calls {
		args, err := ParseValue([]byte(c.Function.Arguments))
		if err != nil {
			return nil, fail(ErrDecode, "call %d (%s): arguments are not JSON: %v", i, c.Function.Name, err)
		}
		if args.Kind() != KindMap {
			return nil, fail(ErrOutputFormat, "call %d (%s): arguments are %s, not an object", i, c.Function.Name, args.Kind())
		}
		out[i] = Call{Name: c.Function.Name, Args: args}
	}
	return out, pass
}

// checkSimple: exactly one call, checked against the only offered function;
// the expected name comes from the function, not the answer (FORMAT.md §7.2).
func checkSimple(it *Item, out []Call, opt Options) Result {
	if len(out) != 1 {
		return fail(ErrSimpleCount, "wrong number of calls: %d, expected 1", len(out))
	}
	return checkCall(&it.Functions[0], &it.Expected.Calls[0], out[0], opt)
}

// checkMultiple: as many calls as the answer has (one), checked against the
// function the answer names (FORMAT.md §7.3).
func checkMultiple(it *Item, out []Call, opt Options) Result {
	if len(out) != len(it.Expected.Calls) {
		return fail(ErrMultipleCount, "wrong number of calls: %d, expected %d", len(out), len(it.Expected.Calls))
	}
	want := &it.Expected.Calls[0]
	return checkCall(it.function(want.Name), want, out[0], opt)
}

// checkParallel matches each expected call, in the answer's order, to the
// first output call not yet taken that passes — greedy first fit, not a
// best matching, so a loose expected call may take the output another one
// needed, as upstream's does (FORMAT.md §7.4).
func checkParallel(it *Item, out []Call, opt Options) Result {
	if len(out) != len(it.Expected.Calls) {
		return fail(ErrParallelCount, "wrong number of calls: %d, expected %d", len(out), len(it.Expected.Calls))
	}
	taken := make([]bool, len(out))
	for i := range it.Expected.Calls {
		want := &it.Expected.Calls[i]
		fn := it.function(want.Name)
		var first Result
		found := false
		for j := range out {
			if taken[j] {
				continue
			}
			res := checkCall(fn, want, out[j], opt)
			if res.Pass {
				taken[j], found = true, true
				break
			}
			if first.Kind == "" {
				first = res
			}
		}
		if !found {
			return fail(ErrNoMatch, "no call matches expected call %d (%s); the first tried: %s", i, want.Name, first.Message)
		}
	}
	return pass
}

// checkCall is the per-call check, in upstream's order; the first failure
// decides (FORMAT.md §7.5).
func checkCall(fn *Function, want *ExpectedCall, call Call, opt Options) Result {
	name := fn.Name
	if opt.SanitizedNames {
		name = SanitizeName(name)
	}
	if call.Name != name {
		return fail(ErrWrongName, "function name %q, expected %q", call.Name, name)
	}
	// Required parameters are looked at before the answer is: a parameter the
	// schema requires must be sent even where the answer marks it optional.
	for _, r := range fn.Required {
		if _, ok := call.Args.Get(r); !ok {
			return fail(ErrMissingRequired, "missing required parameter %q", r)
		}
	}
	for _, arg := range call.Args.Members() {
		p, accept := fn.param(arg.Key), want.param(arg.Key)
		if p == nil || accept == nil {
			return fail(ErrUnexpectedParam, "unexpected parameter %q", arg.Key)
		}
		value := arg.Value
		if p.Type == TypeFloat && value.Kind() == KindInt {
			value = value.asFloat() // Python's promotion: top level only
		}
		if res := checkValue(p, value, accept.Acceptable); !res.Pass {
			return res
		}
	}
	for _, a := range want.Params {
		if _, ok := call.Args.Get(a.Name); !ok && !hasMarker(a.Acceptable) {
			return fail(ErrMissingOptional, "parameter %q omitted but expected one of %s", a.Name, List(a.Acceptable...))
		}
	}
	return pass
}

// hasMarker reports "" in an acceptable list: the parameter may be omitted.
func hasMarker(acceptable []Value) bool {
	for _, a := range acceptable {
		if a.isEmptyMarker() {
			return true
		}
	}
	return false
}
