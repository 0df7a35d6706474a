package trace

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// The SQLite file: a gateway's own store, written by its one writer, read
// by dragoman traces beside it. The writer counts what the file holds
// (read once at open), so that retention needs no scan of the table.

// schemaVersion is the file's PRAGMA user_version this code writes.
const schemaVersion = 1

// The file's tables: traces holds what a list shows and filters on, one
// small row per record, so that a list reads few pages; records holds each
// record's JSON under the same seq, deleted with its row.
const schema = `
CREATE TABLE IF NOT EXISTS traces (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	id TEXT NOT NULL UNIQUE,
	start INTEGER NOT NULL,
	api TEXT NOT NULL,
	model TEXT NOT NULL,
	upstream TEXT NOT NULL,
	runtime TEXT NOT NULL,
	mode TEXT NOT NULL,
	format TEXT NOT NULL,
	status INTEGER NOT NULL,
	calls INTEGER NOT NULL,
	diagnostics INTEGER NOT NULL,
	finish TEXT NOT NULL,
	error TEXT NOT NULL,
	total_ms REAL NOT NULL,
	size INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
	seq INTEGER PRIMARY KEY,
	record BLOB NOT NULL
);
CREATE TRIGGER IF NOT EXISTS traces_delete AFTER DELETE ON traces BEGIN
	DELETE FROM records WHERE seq = old.seq;
END;
CREATE INDEX IF NOT EXISTS traces_start ON traces(start, id);
CREATE INDEX IF NOT EXISTS traces_model ON traces(model, start, id);
CREATE INDEX IF NOT EXISTS traces_upstream ON traces(upstream, start, id);
PRAGMA user_version = 1;
`

// dsn is the driver's name for the file at path: a URI, with the pragmas
// every connection gets.
func dsn(path string, readOnly bool, busy time.Duration) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	q := []string{"_pragma=busy_timeout(" + fmt.Sprint(busy.Milliseconds()) + ")"}
	if readOnly {
		q = append(q, "mode=ro")
	} else {
		q = append(q, "_pragma=auto_vacuum(incremental)", "_pragma=journal_mode(wal)", "_pragma=synchronous(normal)")
	}
	return "file:" + u.EscapedPath() + "?" + strings.Join(q, "&")
}

// OpenSQLite opens (or creates) the store at path for a gateway. It always
// returns a store: one whose file cannot be opened or written keeps the
// records in memory, after a warning (Failed says why).
func OpenSQLite(path string, opt Options) *DB {
	s := newDB(path, opt, sqliteDialect{})
	db, err := openWritable(path, s.opt.Timeout)
	if err != nil {
		if ro, rerr := openSQLiteReadOnly(path); rerr == nil { // what it holds stays readable
			s.db = ro.db
		}
		return s.start(err)
	}
	s.db = db
	var count, bytes int64
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(size), 0) FROM traces`).Scan(&count, &bytes); err != nil {
		return s.start(err)
	}
	s.setTotals(count, bytes)
	return s.start(nil)
}

// openWritable opens the file, creating it and its schema, and makes sure
// it can be written: a read-only file or directory, a file of a later
// schema or one locked for longer than busy fails here, not at the first
// write.
func openWritable(path string, busy time.Duration) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path, false, busy))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	ok := false
	defer func() {
		if !ok {
			db.Close()
		}
	}()
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return nil, err
	}
	if version > schemaVersion {
		return nil, fmt.Errorf("the file was written by a later Dragoman (schema %d; this one writes %d)", version, schemaVersion)
	}
	// The schema ends by writing user_version, even to a file that has
	// it: whether writes work is known now, not at the first trace.
	if _, err := db.Exec(schema); err != nil {
		return nil, err
	}
	ok = true
	return db, nil
}

// openSQLiteReadOnly opens the file at path for reading only: it writes
// nothing, and works while a gateway has the file open.
func openSQLiteReadOnly(path string) (*DB, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(path, true, 5*time.Second))
	if err != nil {
		return nil, err
	}
	if _, err := db.Exec(`SELECT 1 FROM traces LIMIT 1`); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: not a trace store: %w", path, err)
	}
	s := newDB(path, Options{Recent: -1, Log: discard}, sqliteDialect{})
	s.db = db
	return s.readOnly(), nil
}

// sqliteDialect is the SQL of the file.
type sqliteDialect struct{}

func (sqliteDialect) table() string { return "traces" }

func (sqliteDialect) records() (string, string) {
	return "traces t JOIN records r ON r.seq = t.seq", "r.record"
}

func (sqliteDialect) rebind(q string) string { return q }

// write inserts a batch in one transaction.
func (sqliteDialect) write(s *DB, rows []row) error {
	tx, err := s.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.Prepare(`INSERT OR IGNORE INTO traces (id, start, api, model, upstream, runtime, mode, format, status, calls, diagnostics, finish, error, total_ms, size)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer st.Close()
	data, err := tx.Prepare(`INSERT INTO records (seq, record) VALUES (?, ?)`)
	if err != nil {
		return err
	}
	defer data.Close()
	var n, size int64
	for _, w := range rows {
		m := w.sum
		res, err := st.Exec(m.ID, m.Start.UnixNano(), m.API, m.Model, m.Upstream, m.Runtime, m.Mode, m.Format, m.Status, m.Calls, m.Diagnostics,
			m.FinishReason, m.Error, m.TotalMS, len(w.blob))
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			continue // written before
		}
		seq, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if _, err := data.Exec(seq, w.blob); err != nil {
			return err
		}
		n++
		size += int64(len(w.blob))
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.written.Add(n)
	s.addTotals(n, size)
	return nil
}

// trim deletes the oldest records beyond the retention limits: older than
// MaxAge, then beyond MaxCount, then beyond MaxBytes; the freed pages go
// back to the file system.
func (sqliteDialect) trim(s *DB) error {
	ret := s.opt.Retention
	var deleted int64
	del := func(query string, args ...any) error {
		n, size, err := sumDeleted(s.db.Query(query+` RETURNING size`, args...))
		if err != nil {
			return err
		}
		deleted += n
		s.addTotals(-n, -size)
		return nil
	}
	if ret.MaxAge > 0 {
		if err := del(`DELETE FROM traces WHERE start < ?`, s.opt.Now().Add(-ret.MaxAge).UnixNano()); err != nil {
			return err
		}
	}
	count, bytes := s.totals()
	if over := count - int64(ret.MaxCount); ret.MaxCount > 0 && over > 0 {
		if err := del(`DELETE FROM traces WHERE seq IN (SELECT seq FROM traces ORDER BY seq LIMIT ?)`, over); err != nil {
			return err
		}
		_, bytes = s.totals()
	}
	if excess := bytes - ret.MaxBytes; ret.MaxBytes > 0 && excess > 0 {
		// The oldest records whose sizes add up to the excess: read in
		// order until they do, then deleted at once.
		last, err := cutFor(s.db, excess)
		if err != nil {
			return err
		}
		if err := del(`DELETE FROM traces WHERE seq <= ?`, last); err != nil {
			return err
		}
	}
	if deleted > 0 {
		if _, err := s.db.Exec(`PRAGMA incremental_vacuum`); err != nil {
			return err
		}
	}
	return nil
}

// cutFor is the seq of the last of the oldest records whose sizes add up
// to at least excess.
func cutFor(db *sql.DB, excess int64) (int64, error) {
	rows, err := db.Query(`SELECT seq, size FROM traces ORDER BY seq`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var seq, sum int64
	for sum < excess && rows.Next() {
		var size int64
		if err := rows.Scan(&seq, &size); err != nil {
			return 0, err
		}
		sum += size
	}
	return seq, rows.Err()
}

// DefaultPath is where dragoman serve keeps its traces unless told
// otherwise: $XDG_STATE_HOME/dragoman/traces.db, else
// ~/.local/state/dragoman/traces.db (%LOCALAPPDATA%\dragoman\traces.db on
// Windows); "" when neither is known. getenv reads the environment.
func DefaultPath(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "dragoman", "traces.db")
	}
	if d := getenv("LOCALAPPDATA"); d != "" && filepath.Separator == '\\' {
		return filepath.Join(d, "dragoman", "traces.db")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "dragoman", "traces.db")
	}
	return ""
}
