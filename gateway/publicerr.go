package gateway

import (
	"cmp"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// Errors a client sees name the runtimes, never their addresses: a gateway
// in front of runtimes on a private network must not tell every client where
// they are. The trace keeps the whole message (rec.Error) for the operator.

// publicError is an error as a client is told it: msg is the message with
// the addresses taken out; Unwrap gives the error itself, so that the status
// mapping (errorStatus and the dialects' own) sees what it always saw.
type publicError struct {
	msg string
	err error
}

func (e *publicError) Error() string { return e.msg }
func (e *publicError) Unwrap() error { return e.err }

// public returns err as a client may see it: each runtime's address replaced
// by its name (the configured name, else its kind), and any address left
// (one a runtime's own error names, a host a lookup failed for) replaced by
// "<address>". An error that names no address is returned as it is.
func (s *Server) public(err error) error {
	if err == nil || s.cfg.ExposeAddresses {
		return err
	}
	msg := err.Error()
	out := s.scrubAddresses(msg)
	if out == msg {
		return err
	}
	return &publicError{msg: out, err: err}
}

// anyAddress matches what is left of an address once the known ones are
// replaced: URLs, IPv4 and bracketed IPv6 addresses with or without a port.
var anyAddress = regexp.MustCompile(urlPattern + `|\[[0-9a-fA-F:.]+\](:\d+)?|\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b`)

// urlPattern is a URL as errors quote it.
const urlPattern = `[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>]+`

func (s *Server) scrubAddresses(msg string) string {
	known := s.knownAddresses()
	// Upstream names made from an address first ("ollama@http://…"), then
	// URLs whole, path and all, by the name of the runtime they point into
	// ("Post \"ollama\": EOF", not "ollama/api/generate"), then what is
	// left of the known addresses.
	for _, a := range known {
		if a.name {
			msg = strings.ReplaceAll(msg, a.old, a.new)
		}
	}
	msg = anyURL.ReplaceAllStringFunc(msg, func(u string) string {
		trimmed := strings.TrimRight(u, ":.,;)")
		for _, a := range known {
			if !a.name && strings.Contains(a.old, "://") && strings.HasPrefix(trimmed, strings.TrimRight(a.old, "/")) {
				return a.new + u[len(trimmed):]
			}
		}
		return u
	})
	for _, a := range known {
		msg = strings.ReplaceAll(msg, a.old, a.new)
	}
	return anyAddress.ReplaceAllString(msg, "<address>")
}

// anyURL matches a URL.
var anyURL = regexp.MustCompile(urlPattern)

// addressName is a string that names an address and what a client is told
// instead; name marks an upstream's name made from its address.
type addressName struct {
	old, new string
	name     bool
}

// knownAddresses lists, longest first, the strings that name a runtime's
// address — its upstream name when made from the address, its URL (as
// given, and with the password masked), its host:port and host — each with
// what a client is told instead.
func (s *Server) knownAddresses() []addressName {
	s.mu.Lock()
	ups := append(append([]*upstream(nil), s.configured...), s.discovered...)
	cfgs := s.cfg.Upstreams
	s.mu.Unlock()
	var out []addressName
	add := func(raw, label string) {
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			return
		}
		for _, old := range []string{raw, strings.TrimRight(raw, "/"), redactURL(raw), u.Host, hostOnly(u.Host)} {
			if old != "" && old != label && !strings.Contains(label, old) {
				out = append(out, addressName{old: old, new: label})
			}
		}
	}
	for _, u := range ups {
		label := u.label()
		if u.name != label {
			out = append(out, addressName{u.name, label, true})
		}
		add(u.be.BaseURL(), label)
		add(u.cfg.URL, label)
	}
	for _, c := range cfgs {
		label := c.Name
		if label == "" {
			label = "the upstream"
			if c.Kind != "" {
				label = c.Kind
			}
		}
		add(c.URL, label)
	}
	// Longest first: a URL is replaced before the host inside it.
	slices.SortStableFunc(out, func(a, b addressName) int { return cmp.Compare(len(b.old), len(a.old)) })
	return out
}

// label is how clients are told of the upstream: its configured name, else
// its kind.
func (u *upstream) label() string {
	if u.cfg.Name != "" {
		return u.cfg.Name
	}
	return string(u.be.Kind())
}

// hostOnly is a host:port's host, without IPv6 brackets; "" for a host name
// as short as "localhost" would be too common a word to replace.
func hostOnly(hostport string) string {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	h = strings.Trim(h, "[]")
	if h == "localhost" || len(h) < 4 {
		return ""
	}
	return h
}

// RedactURL is raw with any password masked ("user:xxxxx@host"), as the
// gateway prints upstream addresses everywhere.
func RedactURL(raw string) string { return redactURL(raw) }
