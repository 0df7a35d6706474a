package main

import (
	"fmt"
	"runtime/debug"
)

// runVersion prints the module version and the VCS revision the binary was
// built from, as the build info records them (go install …@v1.2.3 gives
// the version; a build in a checkout gives the revision, its time and
// whether the tree was modified).
func runVersion(args []string, e *env) int {
	if len(args) > 0 {
		fmt.Fprintln(e.stderr, "usage: dragoman version")
		return 2
	}
	fmt.Fprintln(e.stdout, versionLine(debug.ReadBuildInfo()))
	return 0
}

func versionLine(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return "dragoman (no build information)"
	}
	line := "dragoman " + info.Main.Version
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		line += " " + rev
		if t := settings["vcs.time"]; t != "" {
			line += " " + t
		}
		if settings["vcs.modified"] == "true" {
			line += " (modified)"
		}
	}
	return line + " " + info.GoVersion
}
