package trace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go
)

// SQLite keeps every record in an SQLite file (modernc.org/sqlite, pure Go;
// docs/DECISIONS.md), within its retention limits, and the most recent in a
// Ring in front of it.
//
// Put never waits for the disk: the record goes into the ring (readable at
// once) and onto a bounded queue that one writer goroutine empties, a batch
// per transaction. A full queue drops the write (counted, with a warning).
// The writer first runs the record's deferred work (Record.Later: the
// prompt's make-up), so that what is written is the record a Get would
// have returned, and a restart loses nothing of it; it costs the writer
// milliseconds, never a request.
//
// A file that cannot be opened or written (a read-only directory or file,
// a full disk, a lock held for longer than the busy timeout) degrades the
// store to its ring: one warning at the log, and the records from then on
// are kept in memory only, never a failed request. What the file held
// before stays readable where it can still be read.
type SQLite struct {
	path string
	opt  SQLiteOptions
	ring *Ring
	db   *sql.DB // nil when the file could not be opened at all
	log  *slog.Logger

	mu     sync.RWMutex // guards closed against the queue's close
	closed bool
	queue  chan item
	done   chan struct{}

	failed    atomic.Pointer[error] // why the store no longer writes
	dropped   atomic.Int64
	written   atomic.Int64
	dropWarn  atomic.Int64 // Unix nanoseconds of the last drop warning
	readWarn  sync.Once
	closeOnce sync.Once
	cmu       sync.Mutex
	count     int64 // records in the file (as the writer knows it)
	bytes     int64 // their stored size
}

var _ Store = (*SQLite)(nil)

// SQLiteOptions configure OpenSQLite. Zero fields take the defaults.
type SQLiteOptions struct {
	Retention Retention
	// Queue is how many records may wait for the writer; default 1024.
	Queue int
	// Recent is the size of the ring in front; default 256.
	Recent int
	// BusyTimeout is how long a write waits for a lock another process
	// holds on the file; default 5s. Past it the store degrades.
	BusyTimeout time.Duration
	// Log gets the store's warnings; nil is slog.Default().
	Log *slog.Logger
	// Now is the clock retention by age reads; nil is time.Now.
	Now func() time.Time

	// failWrite, when set, fails every write with its error (tests).
	failWrite func() error
}

// Retention bounds what the file keeps; the oldest records go first. Zero
// fields take the defaults, a negative one sets no bound.
type Retention struct {
	// MaxCount is how many records are kept; default 100000.
	MaxCount int
	// MaxAge is how long a record is kept, from its start; default 30 days.
	MaxAge time.Duration
	// MaxBytes bounds the records' stored size (their JSON); default 256
	// MiB. The file is a little larger (indexes, pages not yet reused).
	MaxBytes int64
}

// The default retention.
const (
	DefaultMaxCount = 100_000
	DefaultMaxAge   = 30 * 24 * time.Hour
	DefaultMaxBytes = 256 << 20
)

func (r Retention) withDefaults() Retention {
	if r.MaxCount == 0 {
		r.MaxCount = DefaultMaxCount
	}
	if r.MaxAge == 0 {
		r.MaxAge = DefaultMaxAge
	}
	if r.MaxBytes == 0 {
		r.MaxBytes = DefaultMaxBytes
	}
	return r
}

// item is one entry of the writer's queue: a record to write, or a flush
// to acknowledge once everything before it is written.
type item struct {
	r       *Record
	flushed chan struct{}
}

// maxBatch is the most records one transaction writes.
const maxBatch = 64

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
func OpenSQLite(path string, opt SQLiteOptions) *SQLite {
	if opt.Queue <= 0 {
		opt.Queue = 1024
	}
	if opt.Recent == 0 {
		opt.Recent = 256
	}
	if opt.BusyTimeout <= 0 {
		opt.BusyTimeout = 5 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	opt.Retention = opt.Retention.withDefaults()
	s := &SQLite{path: path, opt: opt, ring: NewRing(opt.Recent), log: opt.Log, queue: make(chan item, opt.Queue), done: make(chan struct{})}
	if s.log == nil {
		s.log = slog.Default()
	}
	db, err := openWritable(path, opt.BusyTimeout)
	if err != nil {
		s.degrade(err)
		if ro, rerr := OpenReadOnly(path); rerr == nil { // what it holds stays readable
			s.db = ro.db
		}
		close(s.done)
		return s
	}
	s.db = db
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(size), 0) FROM traces`).Scan(&s.count, &s.bytes); err != nil {
		s.degrade(err)
		close(s.done)
		return s
	}
	go s.run()
	return s
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

// OpenReadOnly opens the store at path for reading only (dragoman traces):
// it writes nothing, and works while a gateway has the file open.
func OpenReadOnly(path string) (*SQLite, error) {
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
	s := &SQLite{path: path, db: db, ring: NewRing(0), log: slog.New(slog.DiscardHandler), done: make(chan struct{})}
	e := errors.New("opened read-only")
	s.failed.Store(&e)
	s.closed = true
	close(s.done)
	return s, nil
}

// Path is the store's file.
func (s *SQLite) Path() string { return s.path }

// Failed is why the store keeps new records in memory only, or nil while
// it writes them.
func (s *SQLite) Failed() error {
	if p := s.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// Stats are counts since the store was opened.
type Stats struct {
	// Written records, and Dropped ones: put while the queue was full.
	Written, Dropped int64
	// Count and Bytes are what the file holds (as the writer knows it).
	Count, Bytes int64
}

// Stats returns the store's counts. Count and Bytes are exact once Flush
// has returned.
func (s *SQLite) Stats() Stats {
	st := Stats{Written: s.written.Load(), Dropped: s.dropped.Load()}
	s.cmu.Lock()
	st.Count, st.Bytes = s.count, s.bytes
	s.cmu.Unlock()
	return st
}

// degrade stops writing, with one warning.
func (s *SQLite) degrade(err error) {
	if s.failed.CompareAndSwap(nil, &err) {
		s.log.Warn(fmt.Sprintf("trace store %s: %v: traces are kept in memory only from now on (the last %d)", s.path, err, s.opt.Recent))
	}
}

// Put keeps r in the ring and queues it for the writer; with the queue
// full the write is dropped and counted.
func (s *SQLite) Put(r *Record) {
	s.ring.Put(r)
	if s.Failed() != nil {
		return
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return
	}
	select {
	case s.queue <- item{r: r}:
	default:
		n := s.dropped.Add(1)
		now := s.opt.Now()
		last := s.dropWarn.Load()
		if (last == 0 || now.Sub(time.Unix(0, last)) >= time.Minute) && s.dropWarn.CompareAndSwap(last, now.UnixNano()) {
			s.log.Warn(fmt.Sprintf("trace store %s: the write queue is full (%d records): %d traces not written so far (each stays readable while among the last %d)", s.path, cap(s.queue), n, s.opt.Recent))
		}
	}
}

// Flush waits for the writer to write everything queued before it.
func (s *SQLite) Flush() {
	s.mu.RLock()
	if s.closed || s.Failed() != nil {
		s.mu.RUnlock()
		return
	}
	done := make(chan struct{})
	s.queue <- item{flushed: done}
	s.mu.RUnlock()
	<-done
}

// Close writes what is queued and closes the file. Reads after it find
// only what the ring holds.
func (s *SQLite) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	<-s.done
	var err error
	s.closeOnce.Do(func() {
		if n := s.dropped.Load(); n > 0 {
			s.log.Warn(fmt.Sprintf("trace store %s: %d traces were not written (the write queue was full)", s.path, n))
		}
		if s.db != nil {
			err = s.db.Close()
		}
	})
	return err
}

// run is the writer: it takes what the queue holds, up to maxBatch records,
// and writes them in one transaction, then trims to the retention limits.
func (s *SQLite) run() {
	defer close(s.done)
	if err := s.trim(); err != nil {
		s.degrade(err)
	}
	var batch []*Record
	var flushes []chan struct{}
	for it := range s.queue {
		batch, flushes = batch[:0], flushes[:0]
		add := func(it item) {
			if it.r != nil {
				batch = append(batch, it.r)
			} else {
				flushes = append(flushes, it.flushed)
			}
		}
		add(it)
	gather:
		for len(batch) < maxBatch {
			select {
			case it, ok := <-s.queue:
				if !ok {
					break gather
				}
				add(it)
			default:
				break gather
			}
		}
		if len(batch) > 0 && s.Failed() == nil {
			if err := s.write(batch); err != nil {
				s.degrade(err)
			} else if err := s.trim(); err != nil {
				s.degrade(err)
			}
		}
		for _, f := range flushes {
			close(f)
		}
		clear(batch) // let the records go with the ring
	}
}

// write inserts a batch in one transaction.
func (s *SQLite) write(batch []*Record) error {
	if s.opt.failWrite != nil {
		if err := s.opt.failWrite(); err != nil {
			return err
		}
	}
	type row struct {
		sum  Summary
		blob []byte
	}
	rows := make([]row, 0, len(batch))
	for _, r := range batch {
		s.ring.settle(r) // the make-up: nothing changes r after it
		blob, err := json.Marshal(r)
		if err != nil {
			s.log.Warn(fmt.Sprintf("trace store %s: trace %s not written: %v", s.path, r.ID, err))
			continue
		}
		rows = append(rows, row{Summarize(r), blob})
	}
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
	s.cmu.Lock()
	s.count += n
	s.bytes += size
	s.cmu.Unlock()
	return nil
}

// trim deletes the oldest records beyond the retention limits: older than
// MaxAge, then beyond MaxCount, then beyond MaxBytes; the freed pages go
// back to the file system.
func (s *SQLite) trim() error {
	ret := s.opt.Retention
	var deleted int64
	del := func(query string, args ...any) error {
		rows, err := s.db.Query(query+` RETURNING size`, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var n, size int64
		for rows.Next() {
			var k int64
			if err := rows.Scan(&k); err != nil {
				return err
			}
			n++
			size += k
		}
		if err := rows.Err(); err != nil {
			return err
		}
		deleted += n
		s.cmu.Lock()
		s.count -= n
		s.bytes -= size
		s.cmu.Unlock()
		return nil
	}
	if ret.MaxAge > 0 {
		if err := del(`DELETE FROM traces WHERE start < ?`, s.opt.Now().Add(-ret.MaxAge).UnixNano()); err != nil {
			return err
		}
	}
	s.cmu.Lock()
	over := s.count - int64(ret.MaxCount)
	excess := s.bytes - ret.MaxBytes
	s.cmu.Unlock()
	if ret.MaxCount > 0 && over > 0 {
		if err := del(`DELETE FROM traces WHERE seq IN (SELECT seq FROM traces ORDER BY seq LIMIT ?)`, over); err != nil {
			return err
		}
		s.cmu.Lock()
		excess = s.bytes - ret.MaxBytes
		s.cmu.Unlock()
	}
	if ret.MaxBytes > 0 && excess > 0 {
		// The oldest records whose sizes add up to the excess: read in
		// order until they do, then deleted at once.
		last, err := s.cutFor(excess)
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
func (s *SQLite) cutFor(excess int64) (int64, error) {
	rows, err := s.db.Query(`SELECT seq, size FROM traces ORDER BY seq`)
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

// Get returns the record with id: from the ring when it is among the most
// recent, else from the file.
func (s *SQLite) Get(id string) (Record, bool) {
	if r, ok := s.ring.Get(id); ok {
		return r, true
	}
	blob, err := s.Raw(id)
	if err != nil || blob == nil {
		return Record{}, false
	}
	var r Record
	if err := json.Unmarshal(blob, &r); err != nil {
		s.warnRead(fmt.Errorf("trace %s: %w", id, err))
		return Record{}, false
	}
	return r, true
}

// Raw is the record with id as the file holds it (JSON), nil when the file
// has none.
func (s *SQLite) Raw(id string) ([]byte, error) {
	if s.db == nil {
		return nil, nil
	}
	var blob []byte
	err := s.db.QueryRow(`SELECT r.record FROM traces t JOIN records r ON r.seq = t.seq WHERE t.id = ?`, id).Scan(&blob)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		s.warnRead(err)
		return nil, err
	}
	return blob, nil
}

// warnRead warns, once, that the file could not be read.
func (s *SQLite) warnRead(err error) {
	s.readWarn.Do(func() {
		s.log.Warn(fmt.Sprintf("trace store %s: reading: %v: listing what is in memory", s.path, err))
	})
}

// where is the SQL condition and arguments of q and its cursor.
func where(q Query, after cursor) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if q.Model != "" {
		add("model = ?", q.Model)
	}
	if q.Upstream != "" {
		add("upstream = ?", q.Upstream)
	}
	if q.StatusMin != 0 {
		add("status >= ?", q.StatusMin)
	}
	if q.StatusMax != 0 {
		add("status <= ?", q.StatusMax)
	}
	if q.HasDiagnostics != nil {
		if *q.HasDiagnostics {
			add("diagnostics > 0")
		} else {
			add("diagnostics = 0")
		}
	}
	if !q.Since.IsZero() {
		add("start >= ?", q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		add("start < ?", q.Until.UnixNano())
	}
	if !after.zero() {
		add("(start, id) < (?, ?)", after.start, after.id)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// List returns the summaries of the records q selects, from the file and
// from the ring (the records not written yet, or kept in memory only), the
// most recent first.
func (s *SQLite) List(q Query) (Page, error) {
	after, err := parseCursor(q.After)
	if err != nil {
		return Page{}, err
	}
	limit := q.limit()
	all := s.ring.matching(q, after)
	if s.db != nil {
		stored, err := s.listFile(q, after, limit+1)
		if err != nil {
			s.warnRead(err)
		}
		seen := make(map[string]bool, len(all))
		for _, m := range all {
			seen[m.ID] = true
		}
		for _, m := range stored {
			if !seen[m.ID] {
				all = append(all, m)
			}
		}
		sortSummaries(all)
	}
	return page(all, limit), nil
}

// listFile is up to n summaries from the file.
func (s *SQLite) listFile(q Query, after cursor, n int) ([]Summary, error) {
	cond, args := where(q, after)
	rows, err := s.db.Query(`SELECT id, start, api, model, upstream, runtime, mode, format, status, calls, diagnostics, finish, error, total_ms FROM traces`+
		cond+` ORDER BY start DESC, id DESC LIMIT ?`, append(args, n)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var m Summary
		var start int64
		if err := rows.Scan(&m.ID, &start, &m.API, &m.Model, &m.Upstream, &m.Runtime, &m.Mode, &m.Format, &m.Status, &m.Calls, &m.Diagnostics,
			&m.FinishReason, &m.Error, &m.TotalMS); err != nil {
			return out, err
		}
		m.Start = time.Unix(0, start)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Export writes the records q selects from the file as JSON Lines, the
// most recent first, each as the file holds it; q.Limit, when set, bounds
// how many (no MaxLimit), and q.After is honoured. It returns how many it
// wrote.
func (s *SQLite) Export(ctx context.Context, q Query, w io.Writer) (int, error) {
	if s.db == nil {
		return 0, errors.New("no file to export from")
	}
	after, err := parseCursor(q.After)
	if err != nil {
		return 0, err
	}
	cond, args := where(q, after)
	query := `SELECT r.record FROM traces t JOIN records r ON r.seq = t.seq` + cond + ` ORDER BY t.start DESC, t.id DESC`
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var blob []byte
		if err := rows.Scan(&blob); err != nil {
			return n, err
		}
		if _, err := w.Write(append(blob, '\n')); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
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
