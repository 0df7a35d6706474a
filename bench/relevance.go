package bench

import "github.com/dragoman-dev/dragoman/chat"

// callMade is upstream's "the output decoded to calls": at least one call,
// every one with arguments that are a JSON object. A call whose arguments do
// not decode makes the whole answer undecodable, so no call (FORMAT.md §8).
func callMade(calls []chat.ToolCall) bool {
	out, res := DecodeCalls(calls)
	return res.Pass && len(out) > 0
}

// checkNoCall scores irrelevance: right when the model made no call. No
// answer at all counts as right too, as upstream counts it; a run reports
// transport failures apart.
func checkNoCall(calls []chat.ToolCall) Result {
	if callMade(calls) {
		return fail(ErrCallMade, "%d call(s) made where none was expected (first: %s)", len(calls), calls[0].Function.Name)
	}
	return pass
}

// checkAnyCall scores relevance: right when the model made any call, of any
// function with any arguments.
func checkAnyCall(calls []chat.ToolCall) Result {
	if !callMade(calls) {
		return fail(ErrNoCallMade, "no call made where one was expected")
	}
	return pass
}
