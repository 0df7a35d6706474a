package gateway

import (
	"net"
	"net/http"
	"slices"
	"strings"
)

// The gateway serves prompts, completions and traces, by default with no
// key, on loopback. A web page the user opens cannot read it directly (no
// CORS), but two tricks get around that, and these checks stop both:
//   - DNS rebinding: a page at attacker.example re-points its name to
//     127.0.0.1 and reads the gateway as same-origin. Its requests then carry
//     Host: attacker.example, so only the hosts the gateway is reached by
//     are served (allowedHost).
//   - Cross-site requests: a page can send "simple" POSTs (text/plain, form
//     bodies) to localhost without asking. Browsers send Origin with them, so
//     a request whose Origin is not an allowed host is refused.
// Pages also get headers that keep them out of frames and stop sniffing.

// allowedHost reports whether a request's Host (or Origin's host) names the
// gateway: a loopback name or address, the listen address's host, or one of
// Config.AllowedHosts. A gateway listening beyond loopback with no
// AllowedHosts accepts any host: it is reached by names it cannot know.
func (s *Server) allowedHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(strings.ToLower(host), "[]")
	if slices.Contains(s.cfg.AllowedHosts, host) || isLoopbackName(host) {
		return true
	}
	listen, _, err := net.SplitHostPort(s.cfg.Listen)
	if err != nil {
		listen = s.cfg.Listen
	}
	listen = strings.Trim(strings.ToLower(listen), "[]")
	if host == listen {
		return true
	}
	return len(s.cfg.AllowedHosts) == 0 && !isLoopbackName(listen)
}

func isLoopbackName(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guard refuses requests for a host the gateway is not, and cross-site
// requests from browsers, and sets the pages' security headers. It reports
// whether the request may go on.
func (s *Server) guard(w http.ResponseWriter, r *http.Request) bool {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	if strings.HasPrefix(r.URL.Path, "/dragoman/") {
		// The pages have inline styles and nothing else: no scripts, no
		// frames, no requests anywhere.
		h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	}
	if !s.allowedHost(r.Host) {
		writeGuardError(w, r, "Host "+quote(r.Host)+" is not this gateway's (a page in a browser may be reaching it by DNS rebinding); add the name to allowed_hosts if you reach it so")
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" && origin != "null" {
		_, rest, _ := strings.Cut(origin, "://")
		if !s.allowedHost(rest) {
			writeGuardError(w, r, "Origin "+quote(origin)+" is not allowed: the gateway does not serve pages of other sites")
			return false
		}
	} else if origin == "null" {
		writeGuardError(w, r, "Origin null is not allowed: the gateway does not serve sandboxed pages")
		return false
	}
	return true
}

func quote(s string) string { return `"` + s + `"` }

// writeGuardError answers 403 in the dialect the path implies.
func writeGuardError(w http.ResponseWriter, r *http.Request, msg string) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/v1/messages"):
		writeAnthropicError(w, http.StatusForbidden, "permission_error", msg)
	case strings.HasPrefix(r.URL.Path, "/api/"):
		writeJSON(w, http.StatusForbidden, map[string]string{"error": msg})
	default:
		writeOpenAIError(w, http.StatusForbidden, "forbidden", msg, "")
	}
}
