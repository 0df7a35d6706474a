package gateway

import (
	"context"
	"errors"

	"github.com/dragoman-dev/dragoman/plan"
)

// The gateway's planning is the plan package's: this file only turns its
// answers into the gateway's terms.

// runtime is the route's runtime as plan reads it.
func (rt *route) runtime() plan.Runtime {
	r := plan.RuntimeOf(rt.up.be.Kind())
	r.CanComplete = rt.up.be.CanComplete()
	return r
}

// fromPlan is a planning error as the gateway reports it: a refusal is the
// client's to fix (a 400 naming its field); anything else as it is.
func fromPlan(err error) error {
	var r *plan.Refusal
	if errors.As(err, &r) {
		return &requestError{msg: r.Msg, param: r.Param}
	}
	return err
}

// toolsError is plan.ToolsError as the gateway reports it.
func toolsError(ctx context.Context, what string, err error) error {
	return fromPlan(plan.ToolsError(ctx, what, err))
}
