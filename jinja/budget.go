package jinja

import (
	"context"
	"time"
)

// The render's time limit and its context. The clock starts with the
// render; reading it (and polling the context) on every step would cost
// more than the step, so the render counts its work instead, in units of
// roughly a byte copied, and looks at both once per checkEvery units:
//
//   - a loop iteration or macro call costs its body: a fixed part plus
//     bodyNodeCost for each statement and expression node the body runs
//     (bodyCost), so a large straight-line body is paid for on every
//     iteration and call;
//   - a filter, method, test, operator, comparison or subscript costs the
//     size of the values it takes and makes (weight): a byte of a string, a
//     few bytes per item of a list or dict;
//   - writing output costs its bytes.
//
// Any single step is bounded by bounds.go (a value of at most
// maxValueBytes or maxValueItems), so a render stops within one check
// interval and one step of its deadline, whatever the template does.
const (
	checkEvery   = 1 << 16          // units between two looks at the clock
	iterCost     = checkEvery / 256 // a loop iteration's fixed part
	callCost     = checkEvery / 16  // a macro call's: one costs about a clock read
	bodyNodeCost = 32               // each statement or expression a body runs
	itemCost     = 8                // each item of a list, tuple or dict a step takes or makes
)

// charge counts n units of work, and every checkEvery units looks at the
// clock and the context.
func (r *renderer) charge(n int) error {
	r.budget -= n
	if r.budget >= 0 {
		return nil
	}
	return r.checkpoint()
}

// checkpoint refills the budget and reports a passed deadline or a
// cancelled context.
func (r *renderer) checkpoint() error {
	r.budget = checkEvery
	if r.stop != nil {
		select {
		case <-r.stop:
			return cancelled(r.ctx)
		default:
		}
	}
	if r.hasDeadline && time.Now().After(r.deadline) {
		return limitError("template render exceeds %s", r.limits.Timeout)
	}
	return nil
}

// startClock starts the render's timeout and takes its context.
func (r *renderer) startClock(ctx context.Context) {
	r.hasDeadline = r.limits.Timeout > 0
	if r.hasDeadline {
		r.deadline = time.Now().Add(r.limits.Timeout)
	}
	r.ctx, r.stop = ctx, nil
	if ctx != nil {
		r.stop = ctx.Done()
	}
	r.budget = checkEvery
}

// cancelled is the error of a render whose context ended: it wraps the
// context's error, so errors.Is(err, context.Canceled) holds.
func cancelled(ctx context.Context) *Error {
	err := ctx.Err()
	return &Error{Kind: "Canceled", Message: "template render stopped: " + err.Error(), cause: err}
}

// weight is the work units a step spends on v, which it takes or makes:
// strings by their bytes, containers by their items (not their contents:
// a step that walks those charges on its own).
func weight(v Value) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case Markup:
		return len(x)
	case *List:
		return len(x.Items) * itemCost
	case Tuple:
		return len(x) * itemCost
	case *Dict:
		return len(x.keys) * itemCost
	}
	return 0
}

// chargeValues charges a step that took a and made b.
func (r *renderer) chargeValues(a, b Value) error {
	return r.charge(weight(a) + weight(b))
}

// chargeCall charges a call of a filter, test, method or function: what it
// took (its value and arguments) and what it made.
func (r *renderer) chargeCall(v Value, args []Value, out Value) error {
	n := weight(v) + weight(out)
	for _, a := range args {
		n += weight(a)
	}
	return r.charge(n)
}
