// Package pgtest gives tests a real PostgreSQL server: the one
// $DRAGOMAN_POSTGRES names (.ci/postgres.sh starts one and prints its URL;
// scripts/test.sh does, and exports it), and a schema of each test's own
// on it, dropped after the test, so that tests and runs beside each other
// never see each other's tables. Without the variable a test skips,
// saying why; with CI=true it fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
)

// Env names the server: a URL whose role may create schemas and roles.
const Env = "DRAGOMAN_POSTGRES"

// URL is $DRAGOMAN_POSTGRES; without it the test skips (or, with CI=true,
// fails).
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		msg := Env + " is unset: the PostgreSQL trace store's tests need a server; .ci/postgres.sh start DIR starts one and prints its URL (scripts/test.sh exports it)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return u
}

var admin struct {
	once sync.Once
	db   *sql.DB
	err  error
}

// Admin is a connection to $DRAGOMAN_POSTGRES as given, for the tests' own
// set-up (schemas, roles, grants), shared by the tests of a binary.
func Admin(t testing.TB) *sql.DB {
	t.Helper()
	u := URL(t)
	admin.once.Do(func() {
		db, err := sql.Open("pgx", u)
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			err = db.PingContext(ctx)
		}
		admin.db, admin.err = db, err
	})
	if admin.err != nil {
		t.Fatalf("%s: %v", Env, admin.err)
	}
	return admin.db
}

// Exec runs statements on the admin connection, failing t on an error.
func Exec(t testing.TB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := Admin(t).Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Name is a name no other test, nor a run beside this one, uses: prefix,
// the process and random letters, lower case (as PostgreSQL folds names).
func Name(prefix string) string {
	return strings.ToLower(fmt.Sprintf("%s_%d_%s", prefix, os.Getpid(), rand.Text()[:10]))
}

// Schema makes a schema of t's own, dropped after t, and returns the
// server's URL with it as the search_path: a trace store's tables go there.
func Schema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	schema := Name("dragoman_test")
	Exec(t, `CREATE SCHEMA `+schema)
	t.Cleanup(func() { Exec(t, `DROP SCHEMA `+schema+` CASCADE`) })
	return WithParams(t, base, "search_path", schema)
}

// WithParams is rawURL with query parameters set (name, value, …).
func WithParams(t testing.TB, rawURL string, kv ...string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// SchemaOf is the search_path of a URL Schema returned.
func SchemaOf(t testing.TB, rawURL string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

// CPU is the user and system CPU time every process named
// "postgres" on this machine has used (the server and its backends, from
// /proc; Linux only, 0 elsewhere): what a benchmark adds to a server of
// its own is the difference.
func CPU() time.Duration {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var ticks int64
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open || s[open+1:end] != "postgres" {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14
		k, _ := strconv.ParseInt(f[12], 10, 64) // stime, field 15
		ticks += u + k
	}
	return time.Duration(ticks) * (time.Second / 100) // USER_HZ is 100 on Linux
}
