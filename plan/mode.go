package plan

import (
	"fmt"
	"slices"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// The two modes: own renders the prompt with the model's template and parses
// the raw output here; relay sends the request to the runtime's chat API.
const (
	Own   = "own"
	Relay = "relay"
)

// ModeFacts are what Mode chooses from.
type ModeFacts struct {
	// Configured is the upstream's mode setting: "relay", "own" or "".
	Configured string
	Runtime    Runtime
	// HasTemplate: the model's chat template is known (and compiles).
	HasTemplate bool
	// Forced: the request requires a call (tool_choice "required" or a
	// named function) and the model is offered tools.
	Forced bool
	// Choice is the request's tool_choice, named in the reasons.
	Choice chat.ToolChoice
}

// ModeChoice is the mode a request is served in and why.
type ModeChoice struct {
	// Mode is Own or Relay; "" when Err refuses the request.
	Mode string
	// Decisions are the reasons, in order, for the trace.
	Decisions []string
	// Action is the trace's action, if the choice took one
	// (trace.ActionForcedCallOwnMode, trace.ActionForcedCallRefused).
	Action string
	// Err is a *Refusal: a forced call that the runtime's chat API does not
	// enforce and that own mode cannot serve.
	Err error
}

// Mode chooses own or relay mode for one request. Own mode needs a runtime
// that takes raw prompts and the model's template, and an upstream not set
// to relay. A forced call is never relayed to a chat API that does not
// enforce tool_choice: it goes in own mode where it can (whatever the
// setting), else it is refused.
func Mode(m ModeFacts) ModeChoice {
	var c ModeChoice
	switch {
	case m.Configured == Relay:
		c.Decisions = append(c.Decisions, "relay mode: configured for this upstream")
	case !m.Runtime.CanComplete:
		c.Decisions = append(c.Decisions, "relay mode: the runtime takes no raw prompts")
	case !m.HasTemplate:
		c.Decisions = append(c.Decisions, "relay mode: the model's chat template is unknown")
	default:
		c.Mode = Own
		return c
	}
	if m.Forced && !m.Runtime.Caps.EnforcesToolChoice {
		if m.Runtime.CanComplete && m.HasTemplate {
			c.Decisions = append(c.Decisions, fmt.Sprintf("tool_choice %s: %s's chat API does not enforce it, so this request goes in own mode, where the call is constrained", ChoiceName(m.Choice), m.Runtime.Name))
			c.Mode, c.Action = Own, trace.ActionForcedCallOwnMode
			return c
		}
		c.Action = trace.ActionForcedCallRefused
		c.Err = &Refusal{Msg: fmt.Sprintf(`tool_choice %s cannot be enforced through %s's chat API (relay mode), and own mode needs the model's chat template and raw prompts; send "auto", or configure a template for the model`, ChoiceName(m.Choice), m.Runtime.Name), Param: "tool_choice"}
		return c
	}
	c.Mode = Relay
	return c
}

// RuntimeMode is the mode a runtime's models are served in as far as the
// runtime decides it, for serve's start-up lines: the configured mode, else
// own where it takes raw prompts (each model's template decides the rest).
func RuntimeMode(configured string, canComplete bool) string {
	switch {
	case configured != "":
		return configured
	case canComplete:
		return Own
	}
	return Relay
}

// OwnModeKinds are the kinds whose servers take raw prompts, sorted: the
// runtimes own mode plans for (inspect's constraint table).
func OwnModeKinds() []backend.Kind {
	return slices.DeleteFunc(backend.Kinds(), func(k backend.Kind) bool { return !k.Caps().RawPrompts })
}

// ChoiceName names a forced tool_choice in the reasons: "required", or
// naming the function.
func ChoiceName(tc chat.ToolChoice) string {
	if tc.Mode == chat.ToolNamed {
		return fmt.Sprintf("naming %q", tc.Name)
	}
	return `"required"`
}
