package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/backend/llamacpp"
	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// `dragoman engine install` with npm's real tarball of the libraries (the
// one .ci/llamalib.sh fetched, served here by a registry on loopback): the
// tarball matches the hash the binary pins, and the engine runs a model on
// the libraries it installed.
func TestEngineInstallRealTarball(t *testing.T) {
	lib := requireLlamaLib(t)
	tgz := filepath.Join(lib, "..", "..", "..", "node-llama-cpp-linux-x64-3.22.1.tgz")
	body, err := os.ReadFile(tgz)
	if err != nil {
		t.Skipf("npm's tarball is not kept beside the libraries (%v): run .ci/llamalib.sh again", err)
	}
	var reg *httptest.Server
	reg = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/@node-llama-cpp/linux-x64/3.22.1":
			// The registry agrees with the pin; the binary then checks the
			// real tarball's bytes against it.
			w.Write([]byte(`{"dist":{"tarball":"` + reg.URL + `/t.tgz","integrity":"` + llamacpp.NPMIntegrity + `"}}`))
		case "/t.tgz":
			w.Write(body)
		default:
			http.NotFound(w, r)
		}
	}))
	defer reg.Close()
	dir := filepath.Join(t.TempDir(), "llama-lib")
	cmd := exec.Command(dragomanBinary(t), "engine", "install", "-registry", reg.URL, "-dir", dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("engine install: %v\n%s", err, out)
	}
	model := filepath.Join(fixtures.Require(t), "models", "tiny-qwen3-toolcall.gguf")
	base := startServe(t, []string{"serve", "-listen", "127.0.0.1:0", "-no-discover", "-model", model, "-ctx", "1024", "-threads", "1", "-llama-lib", dir}, nil, 60*time.Second)
	resp, err := http.Post(base+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"tiny-qwen3-toolcall","messages":[{"role":"user","content":"hi"}],"max_tokens":4}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a request to the engine on the installed libraries: status %d", resp.StatusCode)
	}
}
