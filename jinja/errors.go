package jinja

import "fmt"

// Error is a failure while compiling or rendering a template. Kind names the
// Python exception transformers would raise for the same template and input
// (TemplateError, TemplateSyntaxError, UndefinedError, SecurityError, TypeError,
// ValueError, ...), LimitError when one of the sandbox limits stopped it, or
// Canceled when the render's context ended (the error unwraps to the
// context's).
type Error struct {
	Kind    string
	Message string
	// Line is the template line the error arose on; 0 when unknown.
	Line int
	// cause is the error behind this one (a render's context's, for Kind
	// Canceled), for errors.Is and errors.As.
	cause error
}

// Unwrap returns the error behind e, or nil.
func (e *Error) Unwrap() error { return e.cause }

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: %s (line %d)", e.Kind, e.Message, e.Line)
	}
	return e.Kind + ": " + e.Message
}

func newError(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

func typeError(format string, args ...any) *Error { return newError("TypeError", format, args...) }

func valueError(format string, args ...any) *Error { return newError("ValueError", format, args...) }

func undefinedError(hint string) *Error { return &Error{Kind: "UndefinedError", Message: hint} }

func securityError(format string, args ...any) *Error {
	return newError("SecurityError", format, args...)
}

func syntaxError(line int, format string, args ...any) *Error {
	e := newError("TemplateSyntaxError", format, args...)
	e.Line = line
	return e
}

// limitError reports that a template hit one of the sandbox limits.
func limitError(format string, args ...any) *Error { return newError("LimitError", format, args...) }
