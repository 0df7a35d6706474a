package gateway

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// The client key in a cookie, for the trace pages. A browser cannot send a
// bearer header when its user opens a page, so with a key configured a page
// asked for without it answers 401 with a form; the key posted there (from
// the gateway's own page only) sets a cookie that stands for it, and the
// cookie opens the trace pages and their JSON for reading (GET and HEAD),
// nothing else: a browser sends it with every request to the gateway, a
// forged one too, so it must not run models or change anything (CSRF). It
// is HttpOnly (no script reads it), SameSite=Strict (no other site's page
// or link sends it) and Secure when the page was served over TLS.

const (
	loginPath      = "/dragoman/login"
	traceCookie    = "dragoman_trace"
	traceCookieAge = 30 * 24 * time.Hour
)

// loginCSP is the pages' policy (webguard.go) with one form allowed: the
// login form, posted to the gateway itself.
const loginCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// traceToken is what the cookie holds: an HMAC-SHA256 of a fixed label under
// the key, in hex. It changes with the key, and the key cannot be read back
// from it.
func (s *Server) traceToken() string {
	m := hmac.New(sha256.New, []byte(s.cfg.APIKey))
	m.Write([]byte("dragoman trace pages v1"))
	return hex.EncodeToString(m.Sum(nil))
}

// cookieAuthorized reports whether the request is a read of the trace pages
// or their JSON that carries the trace cookie (compared in constant time).
func (s *Server) cookieAuthorized(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && isTracePath(r.URL.Path) && s.hasTraceCookie(r)
}

// hasTraceCookie reports whether the request carries the trace cookie for
// this key.
func (s *Server) hasTraceCookie(r *http.Request) bool {
	c, err := r.Cookie(traceCookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.traceToken())) == 1
}

// isTracePath: the trace pages and their JSON twins. A path with dot
// segments or doubled slashes is none of them (the mux would redirect it
// elsewhere).
func isTracePath(p string) bool {
	if strings.Contains(p, "/.") || strings.Contains(p, "//") {
		return false
	}
	return strings.HasPrefix(p, "/dragoman/") || p == "/v1/dragoman/requests" || strings.HasPrefix(p, "/v1/dragoman/requests/")
}

// isPageRead: a browser opening one of the pages, which gets the login form
// rather than a JSON 401 when it lacks the key.
func isPageRead(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && strings.HasPrefix(r.URL.Path, "/dragoman/")
}

// loginForm answers with the form that asks for the key; next is the page
// to go to once it is given, problem what was wrong with the last try.
func loginForm(w http.ResponseWriter, status int, next, problem string) {
	h := w.Header()
	h.Set("Content-Security-Policy", loginCSP)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = tracePages.ExecuteTemplate(w, "login", struct{ Next, Problem string }{safeNext(next), problem})
}

// nextPage matches the pages a login may go on to.
var nextPage = regexp.MustCompile(`^/dragoman/(requests/[A-Za-z0-9_-]+)?$`)

// safeNext is next when it is one of the trace pages, else the list: a
// login never sends the browser anywhere else.
func safeNext(next string) string {
	if nextPage.MatchString(next) {
		return next
	}
	return "/dragoman/"
}

// handleLoginPage serves GET /dragoman/login: the form, or the list when no
// key is needed or the browser has it already.
func (s *Server) handleLoginPage(w http.ResponseWriter, r *http.Request) {
	if s.cfg.APIKey == "" || s.hasTraceCookie(r) {
		http.Redirect(w, r, "/dragoman/", http.StatusSeeOther)
		return
	}
	loginForm(w, http.StatusOK, r.URL.Query().Get("next"), "")
}

// handleLogin serves POST /dragoman/login: the key from the form (form
// encoded, field "key"), from the gateway's own page only. The right key
// sets the cookie and goes on to the page asked for (303); a wrong one is
// the form again, 401.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	if s.cfg.APIKey == "" {
		http.Redirect(w, r, "/dragoman/", http.StatusSeeOther)
		return
	}
	if !sameOrigin(r) {
		writeGuardError(w, r, "the key is taken only from the gateway's own login page (Origin "+quote(r.Header.Get("Origin"))+", Host "+quote(r.Host)+")")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		loginForm(w, http.StatusBadRequest, "", "The form could not be read: "+err.Error())
		return
	}
	next := r.PostForm.Get("next")
	key := strings.TrimSpace(r.PostForm.Get("key"))
	if key == "" || subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.APIKey)) != 1 {
		loginForm(w, http.StatusUnauthorized, next, "That is not this gateway's key.")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: traceCookie, Value: s.traceToken(), Path: "/",
		MaxAge: int(traceCookieAge / time.Second), HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil || strings.HasPrefix(strings.ToLower(r.Header.Get("Origin")), "https://"),
	})
	http.Redirect(w, r, safeNext(next), http.StatusSeeOther)
}

// sameOrigin reports whether a POST comes from the gateway's own page: its
// Origin's host is the request's Host (browsers send Origin with every
// POST; the web guard has refused other sites already, this refuses other
// ports and names of this machine too), and Sec-Fetch-Site, where the
// browser sends it, says same-origin. A request with neither header comes
// from no browser and forges nothing.
func sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	_, host, ok := strings.Cut(origin, "://")
	return ok && strings.EqualFold(host, r.Host)
}
