package trace

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DB keeps every record in an SQL database, within its retention limits,
// and the most recent in a Ring in front of it. Two databases: an SQLite
// file (OpenSQLite; modernc.org/sqlite, pure Go), what a gateway uses by
// default, and a PostgreSQL server (OpenPostgres; jackc/pgx, pure Go),
// which several gateways can share (docs/DECISIONS.md). This file is what
// the two share; the SQL that differs (the schema, the insert, the
// retention's bookkeeping) is each one's dialect.
//
// Put never waits for the database: the record goes into the ring
// (readable at once) and onto a bounded queue that one writer goroutine
// empties, a batch per transaction. A full queue drops the write (counted,
// with a warning). The writer first runs the record's deferred work
// (Record.Later: the prompt's make-up), so that what is written is the
// record a Get would have returned, and a restart loses nothing of it; it
// costs the writer milliseconds, never a request.
//
// A database that cannot be opened or written (a read-only directory or
// file, a full disk, a lock held for longer than the timeout; a server
// that is down, refuses the connection or a permission, or is full)
// degrades the store to its ring: one warning at the log, and the records
// from then on are kept in memory only, never a failed request. What the
// database held before stays readable where it can still be read.
type DB struct {
	where string // the file, or the server's URL without its password
	opt   Options
	d     dialect
	ring  *Ring
	db    *sql.DB // nil when the database could not be opened at all
	log   *slog.Logger

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
	count     int64 // records in the database (as the writer knows it)
	bytes     int64 // their stored size
}

var _ Store = (*DB)(nil)

// Options configure OpenSQLite and OpenPostgres. Zero fields take the
// defaults.
type Options struct {
	Retention Retention
	// Queue is how many records may wait for the writer; default 1024.
	Queue int
	// Recent is the size of the ring in front; default 256.
	Recent int
	// Timeout bounds how long the store waits for its database: SQLite's
	// busy timeout (a lock another process holds on the file), and
	// PostgreSQL's connecting, each write and each read; default 5s. A
	// write that takes longer degrades the store.
	Timeout time.Duration
	// Log gets the store's warnings; nil is slog.Default().
	Log *slog.Logger
	// Now is the clock retention by age reads; nil is time.Now.
	Now func() time.Time

	// failWrite, when set, fails every write with its error (tests).
	failWrite func() error
	// trimLocked, when set, runs in a PostgreSQL trim once it has read the
	// totals under their lock, before it deletes (tests: another replica's
	// trim at that moment).
	trimLocked func()
}

func (o Options) withDefaults() Options {
	if o.Queue <= 0 {
		o.Queue = 1024
	}
	if o.Recent == 0 {
		o.Recent = 256
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	o.Retention = o.Retention.withDefaults()
	return o
}

// Retention bounds what the database keeps; the oldest records go first.
// Zero fields take the defaults, a negative one sets no bound.
type Retention struct {
	// MaxCount is how many records are kept; default 100000.
	MaxCount int
	// MaxAge is how long a record is kept, from its start; default 30 days.
	MaxAge time.Duration
	// MaxBytes bounds the records' stored size (their JSON); default 256
	// MiB. The database is a little larger (indexes, pages not yet reused).
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

// dialect is what differs between the databases a DB writes: the tables'
// names, the placeholders, and the writer's two statements, which keep the
// totals retention reads (an SQLite file has one writer, who counts; a
// PostgreSQL table has one per replica, and counts in a row of its own).
type dialect interface {
	// table is the summaries' table; records is the FROM clause that joins
	// a summary (t) to its record, and record the record's column.
	table() string
	records() (from, record string)
	// rebind turns a query's ? placeholders into the database's.
	rebind(query string) string
	// write inserts the rows in one transaction, skipping ids already
	// stored, and updates the store's counts.
	write(s *DB, rows []row) error
	// trim deletes the oldest records beyond the retention limits.
	trim(s *DB) error
}

// row is a record ready to insert: its summary and its JSON.
type row struct {
	sum  Summary
	blob []byte
}

// item is one entry of the writer's queue: a record to write, or a flush
// to acknowledge once everything before it is written.
type item struct {
	r       *Record
	flushed chan struct{}
}

// maxBatch is the most records one transaction writes.
const maxBatch = 64

// newDB is a store on d with nothing opened yet.
func newDB(where string, opt Options, d dialect) *DB {
	opt = opt.withDefaults()
	return &DB{where: where, opt: opt, d: d, ring: NewRing(opt.Recent), log: opt.Log, queue: make(chan item, opt.Queue), done: make(chan struct{})}
}

// start runs the writer, or, when err says the database cannot be
// written, degrades.
func (s *DB) start(err error) *DB {
	if err != nil {
		s.degrade(err)
		close(s.done)
		return s
	}
	go s.run()
	return s
}

// readOnly marks s as a store that never writes.
func (s *DB) readOnly() *DB {
	e := errors.New("opened read-only")
	s.failed.Store(&e)
	s.closed = true
	close(s.done)
	return s
}

// Where is the store's database: the SQLite file's path, or the
// PostgreSQL server's URL without its password.
func (s *DB) Where() string { return s.where }

// Failed is why the store keeps new records in memory only, or nil while
// it writes them.
func (s *DB) Failed() error {
	if p := s.failed.Load(); p != nil {
		return *p
	}
	return nil
}

// Stats are counts since the store was opened.
type Stats struct {
	// Written records, and Dropped ones: put while the queue was full.
	Written, Dropped int64
	// Count and Bytes are what the database holds, as the writer last
	// knew it (on PostgreSQL: every replica's records).
	Count, Bytes int64
}

// Stats returns the store's counts. Count and Bytes are exact once Flush
// has returned (on PostgreSQL, as of the last write).
func (s *DB) Stats() Stats {
	st := Stats{Written: s.written.Load(), Dropped: s.dropped.Load()}
	s.cmu.Lock()
	st.Count, st.Bytes = s.count, s.bytes
	s.cmu.Unlock()
	return st
}

// addTotals and setTotals update the counts retention reads.
func (s *DB) addTotals(n, size int64) {
	s.cmu.Lock()
	s.count += n
	s.bytes += size
	s.cmu.Unlock()
}

func (s *DB) setTotals(n, size int64) {
	s.cmu.Lock()
	s.count, s.bytes = n, size
	s.cmu.Unlock()
}

func (s *DB) totals() (n, size int64) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	return s.count, s.bytes
}

// degrade stops writing, with one warning.
func (s *DB) degrade(err error) {
	if s.failed.CompareAndSwap(nil, &err) {
		s.log.Warn(fmt.Sprintf("trace store %s: %v: traces are kept in memory only from now on (the last %d)", s.where, err, s.opt.Recent))
	}
}

// timeout is a context bounded by the store's timeout.
func (s *DB) timeout() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.opt.Timeout)
}

// Put keeps r in the ring and queues it for the writer; with the queue
// full the write is dropped and counted.
func (s *DB) Put(r *Record) {
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
			s.log.Warn(fmt.Sprintf("trace store %s: the write queue is full (%d records): %d traces not written so far (each stays readable while among the last %d)", s.where, cap(s.queue), n, s.opt.Recent))
		}
	}
}

// Flush waits for the writer to write everything queued before it.
func (s *DB) Flush() {
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

// Close writes what is queued and closes the database. Reads after it
// find only what the ring holds.
func (s *DB) Close() error {
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
			s.log.Warn(fmt.Sprintf("trace store %s: %d traces were not written (the write queue was full)", s.where, n))
		}
		if s.db != nil {
			err = s.db.Close()
		}
	})
	return err
}

// run is the writer: it takes what the queue holds, up to maxBatch records,
// and writes them in one transaction, then trims to the retention limits.
func (s *DB) run() {
	defer close(s.done)
	if err := s.d.trim(s); err != nil {
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
			} else if err := s.d.trim(s); err != nil {
				s.degrade(err)
			}
		}
		for _, f := range flushes {
			close(f)
		}
		clear(batch) // let the records go with the ring
	}
}

// write settles and encodes a batch and hands it to the dialect.
func (s *DB) write(batch []*Record) error {
	if s.opt.failWrite != nil {
		if err := s.opt.failWrite(); err != nil {
			return err
		}
	}
	rows := make([]row, 0, len(batch))
	for _, r := range batch {
		s.ring.settle(r) // the make-up: nothing changes r after it
		blob, err := json.Marshal(r)
		if err != nil {
			s.log.Warn(fmt.Sprintf("trace store %s: trace %s not written: %v", s.where, r.ID, err))
			continue
		}
		rows = append(rows, row{Summarize(r), blob})
	}
	if len(rows) == 0 {
		return nil
	}
	return s.d.write(s, rows)
}

// sumDeleted reads a DELETE … RETURNING size: how many rows went, and
// their size.
func sumDeleted(rows *sql.Rows, err error) (n, size int64, _ error) {
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			return n, size, err
		}
		n++
		size += k
	}
	return n, size, rows.Err()
}

// Get returns the record with id: from the ring when it is among the most
// recent, else from the database.
func (s *DB) Get(id string) (Record, bool) {
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

// Raw is the record with id as the database holds it (JSON), nil when it
// has none.
func (s *DB) Raw(id string) ([]byte, error) {
	if s.db == nil {
		return nil, nil
	}
	ctx, cancel := s.timeout()
	defer cancel()
	from, record := s.d.records()
	var blob []byte
	err := s.db.QueryRowContext(ctx, s.d.rebind(`SELECT `+record+` FROM `+from+` WHERE t.id = ?`), id).Scan(&blob)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		s.warnRead(err)
		return nil, err
	}
	return blob, nil
}

// warnRead warns, once, that the database could not be read.
func (s *DB) warnRead(err error) {
	s.readWarn.Do(func() {
		s.log.Warn(fmt.Sprintf("trace store %s: reading: %v: listing what is in memory", s.where, err))
	})
}

// where is the SQL condition and arguments of q and its cursor, with ?
// placeholders.
func where(q Query, after cursor) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if q.Model != "" {
		add("t.model = ?", q.Model)
	}
	if q.Upstream != "" {
		add("t.upstream = ?", q.Upstream)
	}
	if q.StatusMin != 0 {
		add("t.status >= ?", q.StatusMin)
	}
	if q.StatusMax != 0 {
		add("t.status <= ?", q.StatusMax)
	}
	if q.HasDiagnostics != nil {
		if *q.HasDiagnostics {
			add("t.diagnostics > 0")
		} else {
			add("t.diagnostics = 0")
		}
	}
	if !q.Since.IsZero() {
		add("t.start >= ?", q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		add("t.start < ?", q.Until.UnixNano())
	}
	if !after.zero() {
		add("(t.start, t.id) < (?, ?)", after.start, after.id)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// List returns the summaries of the records q selects, from the database
// and from the ring (the records not written yet, or kept in memory only),
// the most recent first.
func (s *DB) List(q Query) (Page, error) {
	after, err := parseCursor(q.After)
	if err != nil {
		return Page{}, err
	}
	limit := q.limit()
	all := s.ring.matching(q, after)
	if s.db != nil {
		stored, err := s.listDB(q, after, limit+1)
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

// listDB is up to n summaries from the database.
func (s *DB) listDB(q Query, after cursor, n int) ([]Summary, error) {
	ctx, cancel := s.timeout()
	defer cancel()
	cond, args := where(q, after)
	rows, err := s.db.QueryContext(ctx, s.d.rebind(`SELECT t.id, t.start, t.api, t.model, t.upstream, t.runtime, t.mode, t.format, t.status, t.calls, t.diagnostics, t.finish, t.error, t.total_ms FROM `+
		s.d.table()+` t`+cond+` ORDER BY t.start DESC, t.id DESC LIMIT ?`), append(args, n)...)
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

// Export writes the records q selects from the database as JSON Lines, the
// most recent first, each as the database holds it; q.Limit, when set,
// bounds how many (no MaxLimit), and q.After is honoured. It returns how
// many it wrote.
func (s *DB) Export(ctx context.Context, q Query, w io.Writer) (int, error) {
	if s.db == nil {
		return 0, errors.New("no database to export from")
	}
	after, err := parseCursor(q.After)
	if err != nil {
		return 0, err
	}
	cond, args := where(q, after)
	from, record := s.d.records()
	query := `SELECT ` + record + ` FROM ` + from + cond + ` ORDER BY t.start DESC, t.id DESC`
	if q.Limit > 0 {
		query += ` LIMIT ?`
		args = append(args, q.Limit)
	}
	rows, err := s.db.QueryContext(ctx, s.d.rebind(query), args...)
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

// Open opens the store where names for a gateway: a PostgreSQL server's
// URL (postgres:// or postgresql://) or an SQLite file's path. It always
// returns a store (see OpenSQLite and OpenPostgres).
func Open(where string, opt Options) *DB {
	if IsURL(where) {
		return OpenPostgres(where, opt)
	}
	return OpenSQLite(where, opt)
}

// OpenReadOnly opens the store where names for reading only (dragoman
// traces): it writes nothing, and works while gateways write to it.
func OpenReadOnly(where string) (*DB, error) {
	if IsURL(where) {
		return OpenPostgresReadOnly(where)
	}
	return openSQLiteReadOnly(where)
}

// IsURL reports whether where names a PostgreSQL server (postgres:// or
// postgresql://) rather than an SQLite file.
func IsURL(where string) bool {
	w := strings.ToLower(where)
	return strings.HasPrefix(w, "postgres://") || strings.HasPrefix(w, "postgresql://")
}

// discard is the log of a store that writes nothing, and so never warns.
var discard = slog.New(slog.DiscardHandler)
