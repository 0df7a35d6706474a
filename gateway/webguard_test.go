package gateway

import (
	"errors"
	"strings"
	"testing"
)

// DNS rebinding: a request for a Host that is not the gateway's is refused
// in the client's dialect; loopback names, the listen address and the
// configured hosts are served.
func TestHostMustBeTheGateways(t *testing.T) {
	ts := newFakeGateway(t, Config{AllowedHosts: []string{"box.lan"}}, qwenRuntime())
	for host, want := range map[string]int{
		"evil.example:4000": 403, "evil.example": 403, "10.1.2.3:4000": 403,
		"localhost:4000": 200, "127.0.0.1:4000": 200, "[::1]:4000": 200, "box.lan": 200, "BOX.lan:4000": 200,
	} {
		resp := request(t, "GET", ts.URL+"/v1/models", host, "")
		if resp.StatusCode != want {
			t.Errorf("Host %s: status %d, want %d", host, resp.StatusCode, want)
		}
	}
	resp := request(t, "POST", ts.URL+"/v1/messages", "evil.example", chatBody(""))
	if v := decodeBody(t, resp); resp.StatusCode != 403 || path(v, "error", "type") != "permission_error" || !strings.Contains(path(v, "error", "message").(string), "DNS rebinding") {
		t.Errorf("Anthropic dialect: %d %v", resp.StatusCode, v)
	}
	// Listening beyond loopback with no allowed hosts: reached by any name.
	open := newFakeGateway(t, Config{Listen: "0.0.0.0:4000"}, qwenRuntime())
	if resp := request(t, "GET", open.URL+"/v1/models", "gpu-box.example:4000", ""); resp.StatusCode != 200 {
		t.Errorf("listening on every interface: status %d", resp.StatusCode)
	}
}

// A browser's cross-site request carries the page's Origin: refused unless
// the origin is the gateway's own. Clients that are not browsers send none.
func TestCrossSiteRequestsRefused(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	for origin, want := range map[string]int{"https://evil.example": 403, "null": 403, "http://localhost:4000": 200, "": 200} {
		var h []string
		if origin != "" {
			h = []string{"Origin", origin}
		}
		if resp := request(t, "GET", ts.URL+"/v1/models", "", "", h...); resp.StatusCode != want {
			t.Errorf("Origin %q: status %d, want %d", origin, resp.StatusCode, want)
		}
	}
}

// Pages are kept out of frames, run nothing and are not sniffed.
func TestSecurityHeaders(t *testing.T) {
	ts := newFakeGateway(t, Config{}, qwenRuntime())
	resp := get(t, ts.URL+"/dragoman/")
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	for _, u := range []string{"/dragoman/", "/v1/models"} {
		resp := get(t, ts.URL+u)
		if resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", u, resp.Header)
		}
	}
}

// The key is a bearer token in any case of the scheme, or x-api-key; a bare
// Authorization value is not accepted.
func TestClientKeyForms(t *testing.T) {
	ts := newFakeGateway(t, Config{APIKey: "sekret"}, qwenRuntime())
	for _, c := range []struct {
		header, value string
		want          int
	}{
		{"Authorization", "Bearer sekret", 200}, {"Authorization", "bearer sekret", 200}, {"Authorization", "BEARER sekret", 200},
		{"x-api-key", "sekret", 200}, {"Authorization", "sekret", 401}, {"Authorization", "Basic sekret", 401},
		{"Authorization", "Bearer wrong", 401}, {"Authorization", "Bearer ", 401},
	} {
		if resp := request(t, "GET", ts.URL+"/v1/models", "", "", c.header, c.value); resp.StatusCode != c.want {
			t.Errorf("%s: %s: status %d, want %d", c.header, c.value, resp.StatusCode, c.want)
		}
	}
}

// A password in an upstream's address never reaches a client, a trace or
// the log: names and errors carry it masked.
func TestUpstreamCredentialsMasked(t *testing.T) {
	rt := qwenRuntime()
	rt.url = "http://user:hunter2@127.0.0.1:1"
	rt.modelsErr = errors.New("connection refused")
	ts := newFakeGateway(t, Config{}, rt)
	resp := post(t, ts.URL+"/v1/chat/completions", chatBody(""))
	body := toJSON(t, decodeBody(t, resp))
	if strings.Contains(body, "hunter2") || !strings.Contains(body, "ollama: connection refused") {
		t.Errorf("error %s", body)
	}
	// The trace names the address, with the password masked.
	traces := toJSON(t, decodeBody(t, get(t, ts.URL+"/v1/dragoman/requests")))
	if strings.Contains(traces, "hunter2") || !strings.Contains(traces, "user:xxxxx@127.0.0.1:1") {
		t.Errorf("traces %s", traces)
	}
	if _, err := New(Config{Upstreams: []Upstream{{URL: "http://user:hunter2@127.0.0.1:1", Kind: "olama"}}}, Hooks{}); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("validation error %v", err)
	}
}
