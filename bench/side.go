package bench

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/dragoman-dev/dragoman/gateway"
)

// Side is one of the things a run compares: a runtime and model as
// `dragoman diff` names them ([KIND=]URL[#MODEL][@own|@relay]), or a GGUF
// file run by the embedded engine (gguf=PATH), with options after a last
// "?" (?tool_choice=required).
type Side struct {
	// Spec is the side as given: its name in results and summaries.
	Spec string
	// Upstream is the runtime (empty URL for a GGUF side).
	Upstream gateway.Upstream
	// Model is the model asked for: #MODEL, or the GGUF's served name.
	Model string
	// GGUF is the model file of an embedded-engine side.
	GGUF string
	// ToolChoice, when set, is sent as the request's tool_choice (auto,
	// required, none).
	ToolChoice string
}

// ParseSide reads a side. The runtime part is read as `dragoman diff` reads
// its sides (cmd/dragoman/diff.go, parseSide): the mode after the last "@"
// that is not followed by a "/", the model after the last "#", the kind
// before the first "=", http:// added when the address has no scheme.
func ParseSide(spec string) (Side, error) {
	s := Side{Spec: spec}
	rest := spec
	if i := strings.LastIndex(rest, "?"); i >= 0 {
		q, err := url.ParseQuery(rest[i+1:])
		if err != nil {
			return s, fmt.Errorf("side %q: options %q: %v", spec, rest[i+1:], err)
		}
		rest = rest[:i]
		for k, v := range q {
			switch k {
			case "tool_choice":
				s.ToolChoice = v[len(v)-1]
				switch s.ToolChoice {
				case "auto", "required", "none":
				default:
					return s, fmt.Errorf("side %q: tool_choice %q: want auto, required or none", spec, s.ToolChoice)
				}
			default:
				return s, fmt.Errorf("side %q: unknown option %q (known: tool_choice)", spec, k)
			}
		}
	}
	if path, ok := strings.CutPrefix(rest, "gguf="); ok {
		if path == "" {
			return s, fmt.Errorf("side %q: gguf= needs a file", spec)
		}
		if strings.HasSuffix(path, "@relay") {
			return s, fmt.Errorf("side %q: the embedded engine serves own mode only", spec)
		}
		s.GGUF = strings.TrimSuffix(path, "@own")
		return s, nil
	}
	u := &s.Upstream
	if i := strings.LastIndex(rest, "@"); i > 0 && !strings.Contains(rest[i:], "/") {
		u.Mode, rest = rest[i+1:], rest[:i]
		if u.Mode != "own" && u.Mode != "relay" {
			return s, fmt.Errorf("side %q: mode %q: want own or relay", spec, u.Mode)
		}
	}
	if i := strings.LastIndex(rest, "#"); i > 0 {
		s.Model, rest = rest[i+1:], rest[:i]
	}
	if kind, addr, ok := strings.Cut(rest, "="); ok {
		u.Kind, rest = kind, addr
	}
	if rest == "" {
		return s, fmt.Errorf("side %q: no runtime address", spec)
	}
	if !strings.Contains(rest, "://") {
		rest = "http://" + rest
	}
	u.URL = rest
	if s.Model == "" {
		return s, fmt.Errorf("side %q: no model: give it as URL#MODEL", spec)
	}
	return s, nil
}
