package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.3.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "a97a043"}, {Key: "vcs.time", Value: "2026-12-01T22:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	if got, want := versionLine(info, true), "dragoman v0.3.0 a97a043 2026-12-01T22:00:00Z (modified) go1.26.8"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := versionLine(nil, false); !strings.Contains(got, "no build information") {
		t.Errorf("got %q", got)
	}
	var out strings.Builder
	if code := run([]string{"version"}, &env{stdout: &out, stderr: &out}); code != 0 || !strings.HasPrefix(out.String(), "dragoman ") {
		t.Errorf("dragoman version: %d %q", code, out.String())
	}
}
