package jinja

import "fmt"

// Error is a failure while compiling or rendering a template. Kind names the
// Python exception transformers would raise for the same template and input
// (TemplateError, TemplateSyntaxError, UndefinedError, SecurityError, TypeError,
// ValueError, ...), or LimitError when one of the sandbox limits stopped it.
type Error struct {
	Kind    string
	Message string
	// Line is the template line the error arose on; 0 when unknown.
	Line int
}

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
