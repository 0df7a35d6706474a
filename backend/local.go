package backend

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// IsLocal reports whether host names this machine: a loopback address
// (127.0.0.0/8, ::1, also written as ::ffff:127.x), the unspecified address
// (0.0.0.0 or ::, which a client reaches as this machine), "localhost" in any
// case with or without a trailing dot, or an mDNS "*.local" name. Private
// ranges (10/8, 172.16/12, 192.168/16, fc00::/7) are other machines and are
// not local. host may be a bare host, host:port, [v6]:port or a URL.
func IsLocal(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(hostOnly(host), "."))
	if h == "" {
		return false
	}
	if h == "localhost" || strings.HasSuffix(h, ".local") {
		return true
	}
	a, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	a = a.Unmap()
	return a.IsLoopback() || a.IsUnspecified()
}

// hostOnly strips a scheme, path, port, brackets and IPv6 zone.
func hostOnly(s string) string {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "://") {
		if u, err := url.Parse(s); err == nil {
			s = u.Host
		}
	}
	if h, _, err := net.SplitHostPort(s); err == nil {
		s = h
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if i := strings.IndexByte(s, '%'); i >= 0 {
		s = s[:i]
	}
	return s
}
