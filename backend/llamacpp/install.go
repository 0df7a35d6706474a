package llamacpp

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/dragoman-dev/dragoman/backend"
)

// NPMIntegrity is the integrity (Subresource Integrity, sha512) the npm
// registry gives for NPMPackage's tarball. Install checks the download
// against it, whatever the registry says today: the libraries run in the
// gateway's process, so only the exact build this binding is written for
// may be installed.
const NPMIntegrity = "sha512-5uCCDNqWCNfaAm8aR/Uzxbo4HBpKgNF91kCHPepKhgMgV2OAmatoefbOlMihsqCiH2Od35E/eUHQCFbfRBJuOg=="

// maxTarball bounds the download (the package is about 11 MB).
const maxTarball = 256 << 20

// InstallOptions say where Install gets the libraries and puts them; the
// zero value installs NPMPackage from the public registry into the cache's
// llama-lib folder, where FindLib looks.
type InstallOptions struct {
	// Registry is the npm registry's address; default $npm_config_registry,
	// else https://registry.npmjs.org. Only loopback registries may be
	// plain http.
	Registry string
	// Dir receives the libraries; default ${DRAGOMAN_CACHE:-~/.cache/dragoman}/llama-lib.
	Dir string
	// Integrity is what the tarball must hash to; default NPMIntegrity.
	Integrity string
	Client    *http.Client
	// Progress, when set, is told each step.
	Progress func(msg string)
}

// Install fetches NPMPackage's tarball, checks its integrity, and unpacks its
// libraries (bins/linux-x64/*.so) into the directory it returns, with the
// plain-named links (libllama.so, libggml.so) the loader looks for. A
// failure leaves what was installed before in place.
func Install(ctx context.Context, o InstallOptions) (string, error) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", fmt.Errorf("the embedded engine's libraries are built for linux/amd64 only (%s), not %s/%s", NPMPackage, runtime.GOOS, runtime.GOARCH)
	}
	o = o.withDefaults()
	if o.Dir == "" {
		return "", errors.New("no cache directory: give one")
	}
	say := func(format string, a ...any) {
		if o.Progress != nil {
			o.Progress(fmt.Sprintf(format, a...))
		}
	}
	name, version, _ := strings.Cut(strings.TrimPrefix(NPMPackage, "@"), "@")
	meta := strings.TrimRight(o.Registry, "/") + "/@" + name + "/" + version
	say("asking %s for %s", meta, NPMPackage)
	var doc struct {
		Dist struct {
			Tarball   string `json:"tarball"`
			Integrity string `json:"integrity"`
		} `json:"dist"`
	}
	if err := getJSON(ctx, o.Client, meta, &doc); err != nil {
		return "", err
	}
	if doc.Dist.Integrity != o.Integrity {
		return "", fmt.Errorf("the registry gives %s the integrity %q, not the %q this build of dragoman was made for: not installed", NPMPackage, doc.Dist.Integrity, o.Integrity)
	}
	say("downloading %s", doc.Dist.Tarball)
	tgz, err := download(ctx, o.Client, doc.Dist.Tarball)
	if err != nil {
		return "", err
	}
	if got := integrity(tgz); got != o.Integrity {
		return "", fmt.Errorf("%s: the download hashes to %s, not %s: not installed", doc.Dist.Tarball, got, o.Integrity)
	}
	say("integrity checked (%s); unpacking into %s", o.Integrity[:20]+"…", o.Dir)
	return o.Dir, unpack(tgz, o.Dir)
}

func (o InstallOptions) withDefaults() InstallOptions {
	if o.Registry == "" {
		o.Registry = os.Getenv("npm_config_registry")
	}
	if o.Registry == "" {
		o.Registry = "https://registry.npmjs.org"
	}
	if o.Dir == "" {
		if c := cacheDir(); c != "" {
			o.Dir = filepath.Join(c, "llama-lib")
		}
	}
	if o.Integrity == "" {
		o.Integrity = NPMIntegrity
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	return o
}

// checkURL refuses plain http beyond loopback: the tarball is checked by its
// hash, but the registry's answer is what names it.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Errorf("%q: %v", raw, err)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && backend.IsLocal(u.Host):
		return nil
	}
	return fmt.Errorf("%s: want an https:// address (plain http only on this machine)", raw)
}

func fetch(ctx context.Context, c *http.Client, raw string, limit int64) ([]byte, error) {
	if err := checkURL(raw); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", raw, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", raw, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("GET %s: larger than %d bytes", raw, limit)
	}
	return b, nil
}

func getJSON(ctx context.Context, c *http.Client, raw string, v any) error {
	b, err := fetch(ctx, c, raw, 4<<20)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("GET %s: %w", raw, err)
	}
	return nil
}

func download(ctx context.Context, c *http.Client, raw string) ([]byte, error) {
	return fetch(ctx, c, raw, maxTarball)
}

// integrity is b's Subresource Integrity string, as npm writes it.
func integrity(b []byte) string {
	sum := sha512.Sum512(b)
	return "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
}

// libPrefix is where the package keeps the libraries.
const libPrefix = "package/bins/linux-x64/"

// unpack writes the package's libraries into dir: regular files directly
// under libPrefix only (no other path in the archive is trusted), into a new
// folder beside dir that then replaces it.
func unpack(tgz []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return fmt.Errorf("the tarball: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".llama-lib-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it private
		return err
	}
	tr := tar.NewReader(zr)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("the tarball: %w", err)
		}
		rest, ok := strings.CutPrefix(h.Name, libPrefix)
		if !ok || h.Typeflag != tar.TypeReg || rest == "" || strings.Contains(rest, "/") || path.Clean(rest) != rest || !strings.Contains(rest, ".so") {
			continue
		}
		if err := writeFile(filepath.Join(tmp, rest), tr); err != nil {
			return err
		}
		n++
	}
	lib, ggml := "libllama."+LlamaVersion+".so", "libggml."+LlamaVersion+".so"
	for _, f := range []string{lib, ggml} {
		if _, err := os.Stat(filepath.Join(tmp, f)); err != nil {
			return fmt.Errorf("the package holds no %s%s", libPrefix, f)
		}
	}
	for link, target := range map[string]string{"libllama.so": lib, "libggml.so": ggml} {
		if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
			return err
		}
	}
	old := dir + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.Rename(old, dir)
		return err
	}
	_ = os.RemoveAll(old)
	return nil
}

func writeFile(p string, r io.Reader) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, io.LimitReader(r, maxTarball)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
