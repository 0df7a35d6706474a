package main

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// serveAt runs `dragoman serve` with args on a free port until the test
// ends, and returns the address it listens on.
func serveAt(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"serve", "-listen", "127.0.0.1:0", "-no-discover", "-log-format", "off"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "on http://"); ok {
			go io.Copy(io.Discard, stderr)
			addr, _, _ := strings.Cut(rest, " ")
			return addr
		}
	}
	t.Fatal("serve exited before it listened")
	return ""
}

// readAll reads what the server sends until it closes the connection; the
// 30 s deadline only keeps a server that never closes from hanging the test.
func readAll(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	b, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept the connection of a client that stopped sending (read %q)", b)
	}
	return string(b)
}

// A client that stops sending its headers, or its body, is cut off at the
// configured limits: the connection closed, a body that did not arrive a 408.
func TestSlowClientsCutOff(t *testing.T) {
	// Each limit on a server of its own, the other left long: net/http falls
	// back on the whole request's for the headers.
	headers := write(t, t.TempDir(), "dragoman.json", `{"limits": {"request_header_timeout": "200ms", "request_timeout": "10m"}}`)
	body := write(t, t.TempDir(), "dragoman.json", `{"limits": {"request_header_timeout": "10m", "request_timeout": "400ms"}}`)

	c, err := net.Dial("tcp", serveAt(t, "-config", headers))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n") // and never the rest
	if got := readAll(t, c); got != "" && !strings.Contains(got, "408") {
		t.Errorf("slow headers: got %q", got)
	}

	c2, err := net.Dial("tcp", serveAt(t, "-config", body))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	io.WriteString(c2, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":")
	if got := readAll(t, c2); !strings.Contains(got, " 408 ") || !strings.Contains(got, "limits.request_timeout") {
		t.Errorf("slow body: got %q", got)
	}
}

// A gateway these tests start keeps its traces in the run's own state
// folder (TestMain's $XDG_STATE_HOME), not under the user's home.
func TestServeTracesInTestState(t *testing.T) {
	cmd := exec.Command(binary(t), "serve", "-listen", "127.0.0.1:0", "-no-discover", "-log-format", "off")
	cmd.Env = os.Environ() // as the other tests start it: HOME is the user's
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "(kept in "); ok {
			go io.Copy(io.Discard, stderr)
			where, _, _ := strings.Cut(rest, ";")
			state := os.Getenv("XDG_STATE_HOME")
			if state == "" || !strings.HasPrefix(where, state+string(os.PathSeparator)) {
				t.Fatalf("the traces go to %s, not under the test's state folder %q", where, state)
			}
			return
		}
	}
	t.Fatal("serve exited before it said where its traces go")
}
