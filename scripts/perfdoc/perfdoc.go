// Package perfdoc is what the programs that write docs/PERFORMANCE.md share:
// the description of the machine a run measured on, and rewriting one
// section of the document in place. Each section is owned by one program
// (## Render: scripts/perf.sh, ## Parse: scripts/perf-format.sh, ## Gateway:
// scripts/perf-gateway.sh, ## Grammar: scripts/perf-grammar.sh, ## Fault
// injection: scripts/fault-load.sh); the others are kept as they are.
package perfdoc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// LoadAvg is the 1-, 5- and 15-minute load average, or "unknown".
func LoadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if err != nil || len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// CPU names the processor and its core count.
func CPU() string {
	model := runtime.GOARCH
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d cores", model, runtime.NumCPU())
}

// Commit names the HEAD of the repository at dir, with "-dirty" when its
// work tree has changes, or "unknown".
func Commit(dir string) string {
	out, err := exec.Command("git", "-C", dir, "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// intro heads the document; the figures' dates and commits are per section.
const intro = "# Performance\n\n" +
	"The figures in this file are written by scripts, one section each (the section says which and how to run it); " +
	"do not edit them by hand. Each section records its own date, commit, machine and load.\n\n"

// WriteSection puts section, which starts with heading ("## Render"), in
// place of the document's section of that heading (up to the next "## "), or
// after the last one when there is none yet.
func WriteSection(path, heading, section string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var sections []string // each starts with "## "
	for _, l := range strings.SplitAfter(string(old), "\n") {
		if strings.HasPrefix(l, "## ") {
			sections = append(sections, l)
		} else if len(sections) > 0 {
			sections[len(sections)-1] += l
		}
	}
	section = strings.TrimRight(section, "\n") + "\n\n"
	replaced := false
	for i, s := range sections {
		if first, _, _ := strings.Cut(s, "\n"); strings.TrimSpace(first) == heading {
			sections[i], replaced = section, true
		} else {
			sections[i] = strings.TrimRight(s, "\n") + "\n\n"
		}
	}
	if !replaced {
		sections = append(sections, section)
	}
	text := strings.TrimRight(intro+strings.Join(sections, ""), "\n") + "\n"
	return os.WriteFile(path, []byte(text), 0o644)
}
