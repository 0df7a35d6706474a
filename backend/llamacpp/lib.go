package llamacpp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// EnvLib names the environment variable holding the libraries' directory.
const EnvLib = "DRAGOMAN_LLAMA_LIB"

// NPMPackage is the npm package the libraries come from, and LlamaVersion the
// llama.cpp release it ships: the struct layouts in llama.go are that
// release's, so no other build may be loaded.
const (
	NPMPackage   = "@node-llama-cpp/linux-x64@3.22.1"
	LlamaVersion = "v0.5.0"
)

// ErrNoLibrary is returned (wrapped) when no directory holds the libraries.
var ErrNoLibrary = errors.New("llama.cpp libraries not found")

// howToGet is the remedy printed with ErrNoLibrary.
func howToGet() string {
	return fmt.Sprintf("get them with `dragoman engine install` (%s from npm, checked against its pinned hash), "+
		"or `npm pack %s && tar xzf node-llama-cpp-linux-x64-3.22.1.tgz` and pass the directory holding libllama.%s.so "+
		"(package/bins/linux-x64) with --llama-lib DIR or $%s, or put it at %s",
		NPMPackage, NPMPackage, LlamaVersion, EnvLib, strings.Join(wellKnownDirs(), " or "))
}

// cacheDir is ${DRAGOMAN_CACHE:-~/.cache/dragoman}, as the CI scripts use it.
func cacheDir() string {
	if d := os.Getenv("DRAGOMAN_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "dragoman")
	}
	return ""
}

// wellKnownDirs are searched after the flag and the environment variable:
// the cache's llama-lib (a link or copy the user made), where
// .ci/llamalib.sh unpacks the npm package, and beside the executable.
func wellKnownDirs() []string {
	var dirs []string
	if c := cacheDir(); c != "" {
		dirs = append(dirs, filepath.Join(c, "llama-lib"),
			filepath.Join(c, "node-llama-cpp-3.22.1", "package", "bins", "linux-x64"))
	}
	if exe, err := os.Executable(); err == nil {
		d := filepath.Dir(exe)
		dirs = append(dirs, filepath.Join(d, "llama-lib"), d)
	}
	return dirs
}

// FindLib returns the directory to load the libraries from: dir when not
// empty, then $DRAGOMAN_LLAMA_LIB, then the well-known places. An explicit
// directory (flag or environment) without the libraries is an error rather
// than a reason to look elsewhere.
func FindLib(dir string) (string, error) {
	for _, explicit := range []struct{ dir, what string }{{dir, "--llama-lib"}, {os.Getenv(EnvLib), "$" + EnvLib}} {
		if explicit.dir == "" {
			continue
		}
		if _, err := libFile(explicit.dir, "llama"); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v; %s", ErrNoLibrary, explicit.what, explicit.dir, err, howToGet())
		}
		return explicit.dir, nil
	}
	for _, d := range wellKnownDirs() {
		if _, err := libFile(d, "llama"); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: %s", ErrNoLibrary, howToGet())
}

// libFile finds lib<name> in dir: lib<name>.so, else the versioned file the
// npm package ships (lib<name>.v0.5.0.so).
func libFile(dir, name string) (string, error) {
	for _, f := range []string{"lib" + name + ".so", "lib" + name + "." + LlamaVersion + ".so"} {
		p := filepath.Join(dir, f)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("no lib%s.so or lib%s.%s.so in %s", name, name, LlamaVersion, dir)
}

// The libraries are loaded once per process; a second Load with another
// directory is an error (two llama.cpp builds cannot share a process).
var (
	loadMu  sync.Mutex
	loaded  string
	loadErr error
)

// Load loads llama.cpp from dir (see FindLib) and initialises its backends.
func Load(dir string) error {
	dir, err := FindLib(dir)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	loadMu.Lock()
	defer loadMu.Unlock()
	if loaded != "" {
		if loaded != abs {
			return fmt.Errorf("llama.cpp is already loaded from %s; cannot load it from %s too", loaded, abs)
		}
		return loadErr
	}
	loaded = abs
	loadErr = bind(abs)
	return loadErr
}
