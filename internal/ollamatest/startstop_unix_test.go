//go:build unix

package ollamatest

import (
	"errors"
	"net/http"
	"syscall"
	"testing"
)

// TestStartStop checks a test's own server: it answers, and Stop leaves no
// process of its group behind.
func TestStartStop(t *testing.T) {
	srv := Start(t)
	status, body := call(t, srv, "/api/version", nil)
	if status != http.StatusOK {
		t.Fatalf("/api/version: %d %s", status, body)
	}
	t.Logf("/api/version: %s", body)
	// Load the model so a runner process exists, then stop.
	call(t, srv, "/api/generate", map[string]any{
		"model": srv.Random, "prompt": "hi", "raw": true, "stream": false,
		"options": map[string]any{"num_predict": 4},
	})
	pid := srv.cmd.Process.Pid
	srv.Stop()
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process group %d still exists after Stop (kill -0: %v)", pid, err)
	}
}
