package llamacpp

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarball builds a package tarball with the given regular files, plus the
// entries no installer may follow: a path out of the folder, a link, a
// library outside bins/linux-x64.
func tarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	add := func(h *tar.Header, body string) {
		h.Size = int64(len(body))
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		add(&tar.Header{Name: name, Mode: 0o755}, body)
	}
	add(&tar.Header{Name: libPrefix + "../../../escaped.so", Mode: 0o755}, "evil")
	add(&tar.Header{Name: libPrefix + "libevil.so", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, "")
	add(&tar.Header{Name: "package/other.so", Mode: 0o755}, "elsewhere")
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// registry serves one version document and its tarball, as npm's registry
// does; integrity is what the document claims.
func registry(t *testing.T, tgz []byte, claimed string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/@node-llama-cpp/linux-x64/3.22.1":
			json.NewEncoder(w).Encode(map[string]any{"name": "@node-llama-cpp/linux-x64", "version": "3.22.1",
				"dist": map[string]any{"tarball": srv.URL + "/@node-llama-cpp/linux-x64/-/linux-x64-3.22.1.tgz", "integrity": claimed}})
		case "/@node-llama-cpp/linux-x64/-/linux-x64-3.22.1.tgz":
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

var libs = map[string]string{
	libPrefix + "libllama.v0.5.0.so": "llama", libPrefix + "libggml.v0.5.0.so": "ggml",
	libPrefix + "libggml-base.so": "base", libPrefix + "libggml-cpu-haswell.so": "cpu",
}

func TestInstall(t *testing.T) {
	tgz := tarball(t, libs)
	sum := integrity(tgz)
	dir := filepath.Join(t.TempDir(), "cache", "llama-lib")
	got, err := Install(context.Background(), InstallOptions{Registry: registry(t, tgz, sum).URL, Dir: dir, Integrity: sum})
	if err != nil || got != dir {
		t.Fatalf("Install = %q, %v", got, err)
	}
	for _, f := range []string{"libllama.v0.5.0.so", "libggml.v0.5.0.so", "libggml-base.so", "libggml-cpu-haswell.so", "libllama.so", "libggml.so"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not installed: %v", f, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 6 {
		t.Errorf("installed %d files, want the 4 libraries and 2 links: %v", len(entries), entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escaped.so")); err == nil {
		t.Error("an archive path escaped the folder")
	}
	if found, err := FindLib(dir); err != nil || found != dir {
		t.Errorf("FindLib(%s) = %q, %v", dir, found, err)
	}
}

// What the registry says is not trusted: a tarball that is not the pinned
// one is refused, whether the registry admits it (another integrity) or
// not (the same integrity claimed, other bytes served), and the libraries
// installed before are left as they were.
func TestInstallRefusesOtherTarballs(t *testing.T) {
	good := tarball(t, libs)
	pinned := integrity(good)
	dir := filepath.Join(t.TempDir(), "llama-lib")
	if _, err := Install(context.Background(), InstallOptions{Registry: registry(t, good, pinned).URL, Dir: dir, Integrity: pinned}); err != nil {
		t.Fatal(err)
	}
	tampered := tarball(t, map[string]string{libPrefix + "libllama.v0.5.0.so": "backdoor", libPrefix + "libggml.v0.5.0.so": "ggml"})
	for _, c := range []struct{ name, claimed, want string }{
		{"other integrity", integrity(tampered), "not the"},
		{"same integrity claimed", pinned, "the download hashes to"},
	} {
		_, err := Install(context.Background(), InstallOptions{Registry: registry(t, tampered, c.claimed).URL, Dir: dir, Integrity: pinned})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "libllama.v0.5.0.so")); string(b) != "llama" {
		t.Errorf("the installed library became %q", b)
	}
	// A package without the libraries is refused too.
	empty := tarball(t, map[string]string{"package/package.json": "{}"})
	if _, err := Install(context.Background(), InstallOptions{Registry: registry(t, empty, integrity(empty)).URL, Dir: dir, Integrity: integrity(empty)}); err == nil || !strings.Contains(err.Error(), "holds no") {
		t.Errorf("empty package: %v", err)
	}
}

func TestInstallWantsHTTPS(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://registry.npmjs.org": true, "http://127.0.0.1:4873": true, "http://localhost:4873": true,
		"http://registry.example.com": false, "ftp://x": false,
	} {
		if err := checkURL(raw); (err == nil) != ok {
			t.Errorf("checkURL(%s) = %v", raw, err)
		}
	}
}
