package trace

import (
	"path/filepath"
	"testing"

	"github.com/dragoman-dev/dragoman/internal/pgtest"
)

// The databases the store's suite runs on: an SQLite file, always, and a
// real PostgreSQL server, the one $DRAGOMAN_POSTGRES names
// (.ci/postgres.sh starts one and prints its URL; scripts/test.sh does it
// and exports it). Without it the PostgreSQL side skips, saying so; with
// CI=true it fails.

// backend is one kind of database under the suite.
type backend struct {
	name string
	// fresh names a new, empty store for t: a file in t's temporary
	// folder, or a PostgreSQL schema of t's own (dropped after t).
	fresh func(t *testing.T) string
}

var backends = []backend{
	{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "state", "traces.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.Schema(t) }},
}

// forEachBackend runs f on each backend, as subtests named after them.
func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// openTest opens the store where names (a file or a URL), closed after t,
// with its warnings in a buffer.
func openTest(t *testing.T, where string, opt Options) (*DB, *logBuffer) {
	t.Helper()
	var log logBuffer
	opt.Log = log.logger()
	s := Open(where, opt)
	t.Cleanup(func() { s.Close() })
	return s, &log
}

// The PostgreSQL helpers, under this package's names.
var (
	postgresURL = pgtest.URL
	adminDB     = pgtest.Admin
	sqlExec     = pgtest.Exec
	uniqueName  = pgtest.Name
	schemaOf    = pgtest.SchemaOf
)

func freshSchema(t *testing.T) string { return pgtest.Schema(t) }
