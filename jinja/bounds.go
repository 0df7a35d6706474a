package jinja

// Bounds on the values a render builds, whatever the template. They hold
// before the allocation: a hostile template (one from a GGUF or a model
// folder of a stranger) must get a LimitError, never take the process down
// — and a Go program cannot recover from running out of memory or stack.
// The largest values real chat templates build are a conversation's JSON
// (megabytes at most) and lists of its messages.
const (
	// maxValueBytes bounds one string (or Markup) made by an operator, a
	// filter or repr/tojson.
	maxValueBytes = 64 << 20
	// maxValueItems bounds one list or tuple made by an operator.
	maxValueItems = 1 << 22
	// maxValueDepth bounds the nesting repr, tojson, comparisons and tuple
	// keys walk (Python stops at about 1000 with a RecursionError).
	maxValueDepth = 1000
	// maxCallDepth bounds nested macro calls and recursive loops whatever
	// Limits.MaxDepth says: each takes some Go stack.
	maxCallDepth = 10000
)

func tooLong(what string, n int) *Error {
	return limitError("%s of %d bytes exceeds the limit of %d", what, n, maxValueBytes)
}

// sumLen is the total length of parts, or -1 past maxValueBytes (so that
// the sum cannot overflow).
func sumLen(parts []string, sep int) int {
	n := 0
	for i, p := range parts {
		if i > 0 {
			n += sep
		}
		n += len(p)
		if n > maxValueBytes {
			return -1
		}
	}
	return n
}

// reprLimit is what writeRepr panics with when a value is too deep or its
// repr too long; the render's recover turns it back into the LimitError.
type reprLimit struct{ err *Error }
