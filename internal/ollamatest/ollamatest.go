package ollamatest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/fixtures"
)

// Names of the models every server has (see the package doc).
const (
	ToolCallModel   = "tiny-toolcall"
	RandomModel     = "tiny-random"
	NoTemplateModel = "tiny-notemplate"
)

// EnvBinary names the environment variable holding the ollama binary's path.
const EnvBinary = "DRAGOMAN_OLLAMA"

// Bounds on the server's start-up; generous for a loaded two-core CI machine.
const (
	readyTimeout  = 60 * time.Second
	createTimeout = 120 * time.Second
	stopTimeout   = 10 * time.Second
)

// Server is a running `ollama serve` with the tiny models created.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT (no trailing slash).
	URL string
	// Host is 127.0.0.1:PORT, the form OLLAMA_HOST takes.
	Host string
	// Model names, the same as the package constants.
	ToolCall, Random, NoTemplate string
	// Binary is the ollama binary; Dir holds OLLAMA_MODELS, HOME and the log.
	Binary, Dir string
	// LogPath is the file receiving the server's stdout and stderr.
	LogPath string

	cmd      *exec.Cmd
	exited   chan struct{} // closed when the process has been waited for
	waitErr  error
	stopOnce sync.Once
	rmDir    bool // Dir is ours to remove on Stop
}

// Start starts a server owned by t, with its models in t.TempDir(); it is
// stopped when t ends. Prefer Shared unless a test needs a server of its own.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, shared := requirements(t)
	s, err := start(bin, shared, t.TempDir(), false)
	if err != nil {
		t.Fatalf("ollamatest: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

var (
	sharedOnce sync.Once
	sharedSrv  *Server
	sharedErr  error
	sharedMu   sync.Mutex // guards sharedSrv for stopShared
)

// Shared returns the test binary's shared server, starting it on first use.
// It is stopped by Main (or by StopShared). A failed start fails every test
// that asks for it.
func Shared(t testing.TB) *Server {
	t.Helper()
	bin, shared := requirements(t)
	sharedOnce.Do(func() {
		sweepStaleDirs()
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", sharedPrefix, os.Getpid()))
		if err != nil {
			sharedErr = err
			return
		}
		s, err := start(bin, shared, dir, true)
		if err != nil {
			os.RemoveAll(dir)
			sharedErr = err
			return
		}
		sharedMu.Lock()
		sharedSrv = s
		sharedMu.Unlock()
	})
	if sharedErr != nil {
		t.Fatalf("ollamatest: shared server: %v", sharedErr)
	}
	return sharedSrv
}

// sharedPrefix starts the names of shared servers' directories in
// os.TempDir(), followed by the owning process id.
const sharedPrefix = "dragoman-ollamatest-"

// sweepStaleDirs removes shared servers' directories (about 55 MB of model
// blobs each) left by test binaries that are gone without calling
// StopShared, e.g. killed ones or packages whose TestMain does not use Main.
func sweepStaleDirs() {
	matches, _ := filepath.Glob(filepath.Join(os.TempDir(), sharedPrefix+"*-*"))
	for _, d := range matches {
		rest := strings.TrimPrefix(filepath.Base(d), sharedPrefix)
		pid, err := strconv.Atoi(rest[:strings.IndexByte(rest, '-')])
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		os.RemoveAll(d)
	}
}

// live holds the running servers, for Main's signal handler.
var (
	liveMu sync.Mutex
	live   = map[*Server]bool{}
)

// StopShared stops the shared server if it was started. Main calls it; a
// TestMain that does more than Main should call it after m.Run.
func StopShared() {
	sharedMu.Lock()
	s := sharedSrv
	sharedMu.Unlock()
	if s != nil {
		s.Stop()
	}
}

// Main runs the tests and stops the shared server afterwards. On SIGINT or
// SIGTERM it stops every running server (shared or not) and exits. Use it as the package's TestMain:
//
//	func TestMain(m *testing.M) { ollamatest.Main(m) }
func Main(m *testing.M) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		liveMu.Lock()
		var servers []*Server
		for s := range live {
			servers = append(servers, s)
		}
		liveMu.Unlock()
		for _, s := range servers {
			s.Stop()
		}
		fmt.Fprintf(os.Stderr, "ollamatest: %v: stopped %d Ollama server(s)\n", sig, len(servers))
		os.Exit(130)
	}()
	code := m.Run()
	signal.Stop(sigs)
	StopShared()
	os.Exit(code)
}

// requirements finds the binary and the shared fixtures, or skips (fails
// under CI=true) when either is missing.
func requirements(t testing.TB) (bin, shared string) {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	bin = os.Getenv(EnvBinary)
	if bin == "" {
		if ci {
			t.Fatalf("ollamatest: %s is unset under CI=true; .ci/run builds Ollama with .ci/ollama.sh and sets it", EnvBinary)
		}
		t.Skipf("ollamatest: %s is unset: build Ollama with .ci/ollama.sh and set %s to the path it prints", EnvBinary, EnvBinary)
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		t.Fatalf("ollamatest: %s=%s is not an executable file: %v", EnvBinary, bin, err)
	}
	shared = fixtures.Dir()
	if _, err := os.Stat(filepath.Join(shared, "models", "tiny-qwen3-toolcall.gguf")); err != nil {
		if ci {
			t.Fatalf("ollamatest: tiny models missing under %s (set DRAGOMAN_SHARED): %v", shared, err)
		}
		t.Skipf("ollamatest: tiny models missing under %s (set DRAGOMAN_SHARED): %v", shared, err)
	}
	return bin, shared
}

func start(bin, shared, dir string, rmDir bool) (*Server, error) {
	var s *Server
	var err error
	// The free port is found by listening and closing, so another process may
	// take it before Ollama binds it: retry a few times on a fresh port.
	for attempt := 0; attempt < 3; attempt++ {
		s, err = launch(bin, dir, attempt)
		if err == nil {
			break
		}
		if !errors.Is(err, errAddrInUse) {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	s.rmDir = rmDir
	if err := s.createModels(filepath.Join(shared, "models")); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

var errAddrInUse = errors.New("address already in use")

func launch(bin, dir string, attempt int) (*Server, error) {
	host, err := freeHost()
	if err != nil {
		return nil, err
	}
	home := filepath.Join(dir, "home")
	models := filepath.Join(dir, "models")
	for _, d := range []string{home, models} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	logPath := filepath.Join(dir, fmt.Sprintf("ollama-%d.log", attempt))
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child holds its own descriptor

	cmd := exec.Command(bin, "serve")
	cmd.Dir = dir
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Env = append(environ(),
		"OLLAMA_HOST="+host,
		"OLLAMA_MODELS="+models,
		"HOME="+home, // Ollama writes its key pair under $HOME/.ollama
		"OLLAMA_KEEP_ALIVE=10m",
		"OLLAMA_NOHISTORY=1",
	)
	cmd.SysProcAttr = sysProcAttr()
	s := &Server{
		URL: "http://" + host, Host: host,
		ToolCall: ToolCallModel, Random: RandomModel, NoTemplate: NoTemplateModel,
		Binary: bin, Dir: dir, LogPath: logPath,
		cmd: cmd, exited: make(chan struct{}),
	}
	if err := startCmd(cmd, func(err error) {
		s.waitErr = err
		close(s.exited)
	}); err != nil {
		return nil, fmt.Errorf("starting %s serve: %w", bin, err)
	}
	liveMu.Lock()
	live[s] = true
	liveMu.Unlock()
	if err := s.waitReady(); err != nil {
		s.Stop()
		if strings.Contains(s.LogTail(4096), "address already in use") {
			return nil, fmt.Errorf("%w: %v", errAddrInUse, err)
		}
		return nil, err
	}
	return s, nil
}

// environ is the test's environment without any OLLAMA_ settings.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OLLAMA_") {
			env = append(env, kv)
		}
	}
	return env
}

func freeHost() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(readyTimeout)
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(s.URL + "/api/version")
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("status %s", resp.Status)
		}
		select {
		case <-s.exited:
			return fmt.Errorf("ollama serve exited before answering /api/version (%v); log %s:\n%s", s.waitErr, s.LogPath, s.LogTail(4096))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ollama serve did not answer %s/api/version within %v (last: %v); log %s:\n%s", s.URL, readyTimeout, err, s.LogPath, s.LogTail(4096))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// createModels uploads the GGUF blobs and creates the three models through
// /api/blobs and /api/create.
func (s *Server) createModels(modelsDir string) error {
	tmpl, err := os.ReadFile(filepath.Join(modelsDir, "ollama-qwen-tools.tmpl"))
	if err != nil {
		return err
	}
	params := map[string]any{"stop": []string{"<|im_end|>"}, "num_ctx": 2048}
	toolcall, err := s.uploadBlob(filepath.Join(modelsDir, "tiny-qwen3-toolcall.gguf"))
	if err != nil {
		return err
	}
	random, err := s.uploadBlob(filepath.Join(modelsDir, "tiny-qwen3-random.gguf"))
	if err != nil {
		return err
	}
	for _, m := range []struct {
		name, digest, template string
	}{
		{ToolCallModel, toolcall, string(tmpl)},
		{RandomModel, random, string(tmpl)},
		{NoTemplateModel, toolcall, ""},
	} {
		req := map[string]any{
			"model":      m.name,
			"files":      map[string]string{"model.gguf": m.digest},
			"parameters": params,
			"stream":     false,
		}
		if m.template != "" {
			req["template"] = m.template
		}
		if err := s.post("/api/create", req, createTimeout); err != nil {
			return fmt.Errorf("creating model %s: %w", m.name, err)
		}
	}
	return nil
}

// uploadBlob sends a file to /api/blobs/sha256:... and returns its digest.
func (s *Server) uploadBlob(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	digest := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/blobs/"+digest, f)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("uploading %s: %w; log tail:\n%s", path, err, s.LogTail(2048))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("uploading %s: %s: %s", path, resp.Status, bytes.TrimSpace(body))
	}
	return digest, nil
}

func (s *Server) post(path string, body any, timeout time.Duration) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w; log tail:\n%s", path, err, s.LogTail(2048))
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, bytes.TrimSpace(out))
	}
	return nil
}

// LogTail returns up to the last n bytes of the server's log.
func (s *Server) LogTail(n int) string {
	b, err := os.ReadFile(s.LogPath)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	if len(b) > n {
		b = b[len(b)-n:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// Stop ends the server and its runner processes (its whole process group):
// SIGTERM, then SIGKILL if it has not exited within a few seconds. It is safe
// to call more than once.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		signalGroup(s.cmd, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(stopTimeout):
		}
		// Also reaps runners that outlived the server, if any.
		signalGroup(s.cmd, syscall.SIGKILL)
		<-s.exited
		liveMu.Lock()
		delete(live, s)
		liveMu.Unlock()
		if s.rmDir {
			os.RemoveAll(s.Dir)
		}
	})
}
