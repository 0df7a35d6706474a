package jinja

// filterFunc implements a filter: {{ v | name(args..., key=value...) }}.
// kwargs is nil when the call had none.
type filterFunc func(r *renderer, v Value, args []Value, kwargs *Dict) (Value, error)

// testFunc implements a test: {{ v is name(args...) }}.
type testFunc func(r *renderer, v Value, args []Value) (bool, error)

// builtinFilters and builtinTests are filled by the init functions of
// filters.go and tests.go; both are read-only after init.
var (
	builtinFilters = map[string]filterFunc{}
	builtinTests   = map[string]testFunc{}
)
