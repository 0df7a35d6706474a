package template

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 2

// maxLCSCells bounds the LCS table; beyond it the differing middle is shown as
// one block removed and one added.
const maxLCSCells = 4 << 20

type diffOp struct {
	kind byte // ' ', '-', '+'
	line string
}

// LineDiff returns a unified-style diff of the lines of a (---, named nameA) and
// b (+++, named nameB): hunks with @@ headers and two lines of context. Output
// beyond maxLines lines (a non-positive maxLines means 40) is cut, and a last
// line says how many were left out. Equal inputs give "".
func LineDiff(a, b, nameA, nameB string, maxLines int) string {
	if a == b {
		return ""
	}
	if maxLines <= 0 {
		maxLines = 40
	}
	ops := diffLines(splitLines(a), splitLines(b))

	var out []string
	out = append(out, "--- "+nameA, "+++ "+nameB)
	// Walk the ops, emitting hunks around changes.
	n := len(ops)
	i := 0
	for i < n {
		// Find the next change.
		for i < n && ops[i].kind == ' ' {
			i++
		}
		if i >= n {
			break
		}
		start := max(i-diffContext, 0)
		// Extend the hunk while changes are within 2*context of each other.
		end := i
		for end < n {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			j := end
			for j < n && ops[j].kind == ' ' {
				j++
			}
			if j < n && j-end <= 2*diffContext {
				end = j
				continue
			}
			end = min(end+diffContext, n)
			break
		}
		aStart, bStart := lineNumbers(ops, start)
		var aLen, bLen int
		for _, op := range ops[start:end] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		out = append(out, fmt.Sprintf("@@ -%s +%s @@", hunkRange(aStart, aLen), hunkRange(bStart, bLen)))
		for _, op := range ops[start:end] {
			out = append(out, string(op.kind)+op.line)
		}
		i = end
	}
	if len(out) > maxLines {
		cut := len(out) - maxLines
		out = append(out[:maxLines], fmt.Sprintf("... (%d more diff lines)", cut))
	}
	return strings.Join(out, "\n") + "\n"
}

// lineNumbers gives the 1-based line numbers in a and b at which ops[k] starts.
func lineNumbers(ops []diffOp, k int) (int, int) {
	a, b := 1, 1
	for _, op := range ops[:k] {
		if op.kind != '+' {
			a++
		}
		if op.kind != '-' {
			b++
		}
	}
	return a, b
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s into lines without their "\n"; "" has no lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// diffLines returns an edit script turning a into b, from a longest common
// subsequence of lines (after trimming the common prefix and suffix).
func diffLines(a, b []string) []diffOp {
	var ops []diffOp
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	for _, l := range a[:p] {
		ops = append(ops, diffOp{' ', l})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) > maxLCSCells {
		for _, l := range ma {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range mb {
			ops = append(ops, diffOp{'+', l})
		}
	} else {
		ops = append(ops, lcsDiff(ma, mb)...)
	}
	for _, l := range a[len(a)-s:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	// t[i][j] is the LCS length of a[i:] and b[j:].
	w := m + 1
	t := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			} else {
				t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}
