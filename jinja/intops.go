package jinja

import (
	"fmt"
	"math"
	"math/big"
)

// Python's ints are unbounded; this engine's are 64 bits (see DECISIONS.md:
// no chat template computes with numbers beyond them). An int operation
// whose result does not fit is never wrapped: it fails with intTooLarge, a
// LimitError, as any other bound of the sandbox does.

// intTooLarge is the error of an int result beyond 64 bits; what shows the
// operation (2 ** 64, int('9…9'), ...).
func intTooLarge(format string, args ...any) *Error {
	return limitError("integer too large for this engine: %s does not fit in 64 bits", fmt.Sprintf(format, args...))
}

func addInt(a, b int) (int, error) {
	s := a + b
	if (s > a) != (b > 0) {
		return 0, intTooLarge("%d + %d", a, b)
	}
	return s, nil
}

func subInt(a, b int) (int, error) {
	d := a - b
	if (d < a) != (b > 0) {
		return 0, intTooLarge("%d - %d", a, b)
	}
	return d, nil
}

func mulInt(a, b int) (int, error) {
	if a == 0 || b == 0 {
		return 0, nil
	}
	p := a * b
	if p/b != a || (a == -1 && b == math.MinInt) || (b == -1 && a == math.MinInt) {
		return 0, intTooLarge("%d * %d", a, b)
	}
	return p, nil
}

func negInt(a int) (int, error) {
	if a == math.MinInt {
		return 0, intTooLarge("-(%d)", a)
	}
	return -a, nil
}

// powInt is a ** b for b >= 0, by squaring: a huge exponent costs its 64
// bits, not b multiplications, and overflows at once unless a is -1, 0 or 1.
func powInt(a, b int) (int, error) {
	result, base, e := 1, a, b
	for {
		if e&1 == 1 {
			r, err := mulInt(result, base)
			if err != nil {
				return 0, intTooLarge("%d ** %d", a, b)
			}
			result = r
		}
		e >>= 1
		if e == 0 {
			return result, nil
		}
		sq, err := mulInt(base, base)
		if err != nil {
			return 0, intTooLarge("%d ** %d", a, b)
		}
		base = sq
	}
}

// floorDivInt is Python's a // b, b not 0: only minInt // -1 overflows.
func floorDivInt(a, b int) (int, error) {
	if a == math.MinInt && b == -1 {
		return 0, intTooLarge("%d // %d", a, b)
	}
	return floorDiv(a, b), nil
}

// floatToInt is int(f): NaN and the infinities raise as in Python, a finite
// value beyond 64 bits with intTooLarge.
func floatToInt(f float64) (int, error) {
	switch {
	case math.IsNaN(f):
		return 0, valueError("cannot convert float NaN to integer")
	case math.IsInf(f, 0):
		return 0, newError("OverflowError", "cannot convert float infinity to integer")
	case f >= 1<<63 || f < -(1<<63):
		return 0, intTooLarge("int(%s)", formatFloat(f))
	}
	return int(f), nil
}

// isLimitError reports whether err is a LimitError (intTooLarge's, say):
// what Python would have computed, so no fallback (a filter's default) may
// hide it.
func isLimitError(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Kind == "LimitError"
}

// isMinInt reports whether the literal is 2**63, which negated fits.
func (b *bigIntExpr) isMinInt() bool {
	n, _ := new(big.Int).SetString(b.text, 0)
	return n.Cmp(new(big.Int).Lsh(big.NewInt(1), 63)) == 0
}

// bigInt compiles an int literal beyond 64 bits: evaluating it fails.
func bigInt(e *bigIntExpr) evalFn {
	return func(*renderer, *frame) (Value, error) {
		err := intTooLarge("the literal %s", e.text)
		err.Line = e.line
		return nil, err
	}
}
