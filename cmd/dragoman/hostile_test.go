package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Hostile templates (testdata/hostile.jsonl: values that would take many
// GB, cyclic and deep values, endless loops) rendered by the real binary in
// a child process under a 4 GB address-space limit: each one ends within
// seconds with its error, never a Go fatal error or a panic. A template
// from a stranger's GGUF must not be able to take the gateway down.
func TestHostileTemplates(t *testing.T) {
	bin := binary(t)
	f, err := os.Open(filepath.Join("testdata", "hostile.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	req := write(t, dir, "req.json", `{"messages": [{"role": "user", "content": "hi"}]}`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c struct{ Name, Template, Error string }
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		t.Run(c.Name, func(t *testing.T) {
			tpl := write(t, t.TempDir(), "t.jinja", c.Template)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 4000000; exec "$0" render --template "$1" --request "$2"`, bin, tpl, req)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			msg := stderr.String()
			if ctx.Err() != nil {
				t.Fatalf("still rendering after a minute")
			}
			if strings.Contains(msg, "fatal error") || strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
				t.Fatalf("the process died: %s", firstLines(msg, 3))
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(msg, c.Error) {
				t.Errorf("exit %v, stderr %q; want status 1 and %q", err, firstLines(msg, 2), c.Error)
			}
			t.Logf("%.2fs: %s", time.Since(start).Seconds(), strings.TrimSpace(msg))
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
