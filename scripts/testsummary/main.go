// Command testsummary reads `go test -json` from standard input and prints
// what a person needs from a long run: each package's result and wall time
// as it finishes, the output of every failed test, the slowest tests, every
// skipped test with its reason, and a closing count ("N passed, N failed,
// N skipped"). It exits 1 when a test or a package failed.
//
//	go test -json ./... | go run ./scripts/testsummary -tier default
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of test2json's output.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type result struct {
	pkg, test string
	action    string
	elapsed   float64
	output    []string
}

func main() {
	tier := flag.String("tier", "", "the tier's name, printed with the counts")
	slowest := flag.Int("slowest", 10, "how many of the slowest tests to list")
	skips := flag.String("skips", "", "append each skip to this file (tier, test and reason, one a line)")
	flag.Parse()
	ok := summarize(os.Stdin, os.Stdout, *tier, *slowest, *skips)
	if !ok {
		os.Exit(1)
	}
}

func summarize(in io.Reader, out io.Writer, tier string, slowest int, skipFile string) bool {
	results := map[string]*result{} // package + test → result
	var order []*result
	var pkgFailed []string
	pkgOutput := map[string][]string{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil {
			fmt.Fprintln(out, string(line)) // build errors and the like come as plain text
			continue
		}
		if e.Test == "" {
			switch e.Action {
			case "output":
				pkgOutput[e.Package] = append(pkgOutput[e.Package], e.Output)
			case "pass", "fail", "skip":
				fmt.Fprintf(out, "%-4s %-50s %7.1fs\n", strings.ToUpper(e.Action), e.Package, e.Elapsed)
				if e.Action == "fail" {
					pkgFailed = append(pkgFailed, e.Package)
					if !hasFailedTest(results, e.Package) {
						fmt.Fprint(out, strings.Join(pkgOutput[e.Package], ""))
					}
				}
				delete(pkgOutput, e.Package)
			}
			continue
		}
		key := e.Package + " " + e.Test
		r := results[key]
		if r == nil {
			r = &result{pkg: e.Package, test: e.Test}
			results[key] = r
			order = append(order, r)
		}
		switch e.Action {
		case "output":
			r.output = append(r.output, e.Output)
		case "pass", "fail", "skip":
			r.action, r.elapsed = e.Action, e.Elapsed
			if e.Action == "fail" {
				fmt.Fprintf(out, "--- FAIL: %s (%s)\n%s", e.Test, e.Package, strings.Join(r.output, ""))
			}
		}
	}
	var passed, failed, skipped int
	var skipLines []string
	var timed []*result
	for _, r := range order {
		switch r.action {
		case "pass":
			passed++
		case "fail":
			failed++
		case "skip":
			skipped++
			skipLines = append(skipLines, fmt.Sprintf("%s %s: %s", shortPkg(r.pkg), r.test, skipReason(r.output)))
		}
		if !strings.Contains(r.test, "/") {
			timed = append(timed, r)
		}
	}
	sort.Slice(timed, func(i, j int) bool { return timed[i].elapsed > timed[j].elapsed })
	if len(timed) > slowest {
		timed = timed[:slowest]
	}
	fmt.Fprintf(out, "\nslowest tests%s:\n", label(tier))
	for _, r := range timed {
		fmt.Fprintf(out, "  %7.1fs  %s %s\n", r.elapsed, shortPkg(r.pkg), r.test)
	}
	if len(skipLines) > 0 {
		fmt.Fprintf(out, "\nskipped%s, with each reason:\n", label(tier))
		for _, l := range skipLines {
			fmt.Fprintln(out, "  "+l)
		}
		if skipFile != "" {
			appendSkips(skipFile, tier, skipLines)
		}
	}
	if len(pkgFailed) > 0 {
		fmt.Fprintf(out, "\npackages failed: %s\n", strings.Join(pkgFailed, " "))
	}
	fmt.Fprintf(out, "\n%s%d passed, %d failed, %d skipped\n", prefix(tier), passed, failed, skipped)
	return failed == 0 && len(pkgFailed) == 0
}

func hasFailedTest(results map[string]*result, pkg string) bool {
	for _, r := range results {
		if r.pkg == pkg && r.action == "fail" {
			return true
		}
	}
	return false
}

// skipReason is what the test said when it skipped: its last lines of
// output that are not the test runner's own.
func skipReason(output []string) string {
	var said []string
	for _, l := range output {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") {
			continue
		}
		said = append(said, t)
	}
	if len(said) == 0 {
		return "(no reason given)"
	}
	return said[len(said)-1]
}

func shortPkg(p string) string {
	if i := strings.Index(p, "/dragoman/"); i >= 0 {
		return p[i+len("/dragoman/"):]
	}
	return p
}

func label(tier string) string {
	if tier == "" {
		return ""
	}
	return " (" + tier + " tier)"
}

func prefix(tier string) string {
	if tier == "" {
		return ""
	}
	return tier + ": "
}

func appendSkips(path, tier string, lines []string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	for _, l := range lines {
		fmt.Fprintf(f, "%s\t%s\n", tier, l)
	}
}
