package trace

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // database/sql over pgx, pure Go
)

// The PostgreSQL store: one trace view for several gateways (replicas),
// each writing its own records to the same tables and listing everyone's.
//
// The tables live in the first schema of the connection's search_path
// (public unless the URL says otherwise, as ?search_path=traces), created
// when absent. dragoman_traces holds one row per record: what a list shows
// and filters on, and the record's JSON as the writer encoded it (bytea,
// so that a restart gives back every byte; PostgreSQL keeps the large ones
// out of line, compressed, so a list reads few pages).
// dragoman_trace_meta is one row: the schema's version, and how many
// records the table holds and their size, kept by every writer in the
// statement that inserts (so retention never counts the table). Retention
// is trimmed by whichever replica finds the table over a limit, holding
// that row's lock: replicas trimming at once wait for each other, and the
// second finds nothing left to delete, so the table never loses more than
// the limits say. A restricted role needs SELECT, INSERT and DELETE on
// dragoman_traces and SELECT and UPDATE on dragoman_trace_meta once the
// tables exist (created by a role that may).

// pgSchemaVersion is the schema this code writes (dragoman_trace_meta's
// version). A later one is refused: its writer may keep what this one
// cannot.
const pgSchemaVersion = 1

// pgSchema creates the tables of pgSchemaVersion. id sorts by bytes
// (COLLATE "C") whatever the database's collation, as the ring and the
// list's cursor compare ids.
var pgSchema = []string{
	`CREATE TABLE IF NOT EXISTS dragoman_traces (
	seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id text COLLATE "C" NOT NULL UNIQUE,
	start bigint NOT NULL,
	api text NOT NULL,
	model text NOT NULL,
	upstream text NOT NULL,
	runtime text NOT NULL,
	mode text NOT NULL,
	format text NOT NULL,
	status integer NOT NULL,
	calls integer NOT NULL,
	diagnostics integer NOT NULL,
	finish text NOT NULL,
	error text NOT NULL,
	total_ms double precision NOT NULL,
	size bigint NOT NULL,
	record bytea NOT NULL
)`,
	`COMMENT ON COLUMN dragoman_traces.start IS 'the request''s start, Unix nanoseconds'`,
	`COMMENT ON COLUMN dragoman_traces.record IS 'the trace as JSON (UTF-8), as GET /v1/dragoman/requests/{id} returns it'`,
	`CREATE INDEX IF NOT EXISTS dragoman_traces_start ON dragoman_traces (start, id)`,
	`CREATE INDEX IF NOT EXISTS dragoman_traces_model ON dragoman_traces (model, start, id)`,
	`CREATE INDEX IF NOT EXISTS dragoman_traces_upstream ON dragoman_traces (upstream, start, id)`,
	`CREATE TABLE IF NOT EXISTS dragoman_trace_meta (
	one boolean PRIMARY KEY DEFAULT true CHECK (one),
	version integer NOT NULL,
	count bigint NOT NULL,
	bytes bigint NOT NULL
)`,
	`INSERT INTO dragoman_trace_meta (version, count, bytes) VALUES (1, 0, 0) ON CONFLICT DO NOTHING`,
}

// OpenPostgres opens the store on the PostgreSQL server at rawURL
// (postgres://user:password@host:port/database?…, as libpq reads it) for a
// gateway, creating its tables when absent. It always returns a store: one
// whose server cannot be reached, refuses the role, or cannot be written
// keeps the records in memory, after a warning (Failed says why).
func OpenPostgres(rawURL string, opt Options) *DB {
	s := newDB(redactURL(rawURL), opt, postgresDialect{})
	db, err := openPostgres(rawURL, s.opt, false)
	if err != nil {
		return s.start(err)
	}
	if err := pgPrepare(db, s.opt); err != nil {
		// What the tables hold stays readable where there are tables to
		// read (a role that may only read them); else nothing is read.
		ctx, cancel := s.timeout()
		defer cancel()
		if _, verr := pgVersion(ctx, db); verr == nil {
			s.db = db
		} else {
			db.Close()
		}
		return s.start(err)
	}
	s.db = db
	return s.start(nil)
}

// OpenPostgresReadOnly opens the store on the server at rawURL for reading
// only (dragoman traces): its transactions are read-only.
func OpenPostgresReadOnly(rawURL string) (*DB, error) {
	s := newDB(redactURL(rawURL), Options{Recent: -1, Log: discard}, postgresDialect{})
	db, err := openPostgres(rawURL, s.opt, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where, err)
	}
	ctx, cancel := s.timeout()
	defer cancel()
	if _, err := pgVersion(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s: not a trace store: %w", s.where, err)
	}
	s.db = db
	return s.readOnly(), nil
}

// openPostgres connects to rawURL: the connection's timeout is the
// store's unless the URL sets connect_timeout; the server sees the
// application dragoman.
func openPostgres(rawURL string, opt Options, readOnly bool) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = opt.Timeout
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "dragoman"
	}
	if readOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	db := stdlib.OpenDB(*cfg)
	// The writer holds one connection; lists and gets use the others.
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	ctx, cancel := context.WithTimeout(context.Background(), opt.Timeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// pgVersion is the schema's version, an error where there are no tables.
func pgVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, `SELECT version FROM dragoman_trace_meta`).Scan(&v)
	return v, err
}

// pgPrepare creates the tables where they are absent, under a lock that
// makes replicas starting together create them once, and makes sure this
// role may write them: a later schema or a missing privilege fails here,
// not at the first write.
func pgPrepare(db *sql.DB, opt Options) error {
	ctx, cancel := context.WithTimeout(context.Background(), opt.Timeout)
	defer cancel()
	var exists bool
	if err := db.QueryRowContext(ctx, `SELECT to_regclass('dragoman_trace_meta') IS NOT NULL AND to_regclass('dragoman_traces') IS NOT NULL`).Scan(&exists); err != nil {
		return err
	}
	if !exists { // a role that may only write the tables does not try to create them
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.dragoman_traces'))`); err != nil {
			return err
		}
		for _, q := range pgSchema {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("creating the tables: %w", err)
			}
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	v, err := pgVersion(ctx, db)
	if err != nil {
		return err
	}
	if v > pgSchemaVersion {
		return fmt.Errorf("the tables were made by a later Dragoman (schema %d; this one writes %d)", v, pgSchemaVersion)
	}
	var may bool
	if err := db.QueryRowContext(ctx, `SELECT bool_and(has_table_privilege(t, p)) FROM (VALUES
		('dragoman_traces', 'SELECT'), ('dragoman_traces', 'INSERT'), ('dragoman_traces', 'DELETE'),
		('dragoman_trace_meta', 'SELECT'), ('dragoman_trace_meta', 'UPDATE')) AS v(t, p)`).Scan(&may); err != nil {
		return err
	}
	if !may {
		return errors.New("this role may not write the tables (it needs SELECT, INSERT and DELETE on dragoman_traces, SELECT and UPDATE on dragoman_trace_meta)")
	}
	return nil
}

// redactURL is rawURL as a log may show it: without its password.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "postgres://(a URL that does not parse)"
	}
	return u.Redacted()
}

// postgresDialect is the SQL of the PostgreSQL store.
type postgresDialect struct{}

func (postgresDialect) table() string { return "dragoman_traces" }

func (postgresDialect) records() (string, string) { return "dragoman_traces t", "t.record" }

// rebind numbers the placeholders: ? becomes $1, $2, … (the queries have
// no ? of their own).
func (postgresDialect) rebind(q string) string {
	var b strings.Builder
	n := 0
	for {
		i := strings.IndexByte(q, '?')
		if i < 0 {
			b.WriteString(q)
			return b.String()
		}
		n++
		b.WriteString(q[:i])
		b.WriteString("$" + strconv.Itoa(n))
		q = q[i+1:]
	}
}

// pgInsert writes a batch in one statement (one round trip): the rows as
// arrays, unnested; ids already stored skipped; the totals updated in the
// same statement, so they move with the rows.
const pgInsert = `WITH ins AS (
	INSERT INTO dragoman_traces (id, start, api, model, upstream, runtime, mode, format, status, calls, diagnostics, finish, error, total_ms, size, record)
	SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
		$9::integer[], $10::integer[], $11::integer[], $12::text[], $13::text[], $14::double precision[], $15::bigint[], $16::bytea[])
	ON CONFLICT (id) DO NOTHING
	RETURNING size
), added AS (SELECT count(*) AS n, coalesce(sum(size), 0) AS size FROM ins)
UPDATE dragoman_trace_meta SET count = count + added.n, bytes = bytes + added.size FROM added
RETURNING added.n, dragoman_trace_meta.count, dragoman_trace_meta.bytes`

func (postgresDialect) write(s *DB, rows []row) error {
	k := len(rows)
	var (
		ids, apis, models, upstreams, runtimes, modes, formats, finishes, errs = make([]string, k), make([]string, k), make([]string, k),
			make([]string, k), make([]string, k), make([]string, k), make([]string, k), make([]string, k), make([]string, k)
		starts, sizes        = make([]int64, k), make([]int64, k)
		statuses, calls, dgs = make([]int32, k), make([]int32, k), make([]int32, k)
		totals               = make([]float64, k)
		blobs                = make([][]byte, k)
	)
	for i, w := range rows {
		m := w.sum
		ids[i], apis[i], models[i], upstreams[i], runtimes[i], modes[i], formats[i], finishes[i], errs[i] = m.ID, m.API, m.Model, m.Upstream,
			m.Runtime, m.Mode, m.Format, m.FinishReason, m.Error
		starts[i], sizes[i] = m.Start.UnixNano(), int64(len(w.blob))
		statuses[i], calls[i], dgs[i] = int32(m.Status), int32(m.Calls), int32(m.Diagnostics)
		totals[i], blobs[i] = m.TotalMS, w.blob
	}
	ctx, cancel := s.timeout()
	defer cancel()
	var n, count, bytes int64
	if err := s.db.QueryRowContext(ctx, pgInsert, ids, starts, apis, models, upstreams, runtimes, modes, formats, statuses, calls, dgs,
		finishes, errs, totals, sizes, blobs).Scan(&n, &count, &bytes); err != nil {
		return err
	}
	s.written.Add(n)
	s.setTotals(count, bytes)
	return nil
}

// trim deletes the oldest records beyond the retention limits: older than
// MaxAge, then beyond MaxCount, then beyond MaxBytes. A look at the totals
// row and the oldest start (an index's first entry) tells whether there is
// anything to do; only then does it take the row's lock, in a transaction
// that reads the totals again (another replica may have trimmed
// meanwhile), deletes, and writes them back. While it holds the lock no
// replica's insert commits, so the rows it sees are the ones the totals
// count.
func (postgresDialect) trim(s *DB) error {
	ret := s.opt.Retention
	cutoff := s.opt.Now().Add(-ret.MaxAge).UnixNano()
	ctx, cancel := s.timeout()
	defer cancel()
	var count, bytes int64
	var oldest sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT count, bytes, (SELECT min(start) FROM dragoman_traces) FROM dragoman_trace_meta`).Scan(&count, &bytes, &oldest); err != nil {
		return err
	}
	s.setTotals(count, bytes)
	if !pgOver(ret, count, bytes, oldest, cutoff) {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT count, bytes FROM dragoman_trace_meta FOR UPDATE`).Scan(&count, &bytes); err != nil {
		return err
	}
	if s.opt.trimLocked != nil {
		s.opt.trimLocked()
	}
	var gone, freed int64
	del := func(query string, args ...any) error {
		n, size, err := sumDeleted(tx.QueryContext(ctx, query+` RETURNING size`, args...))
		gone, freed = gone+n, freed+size
		count, bytes = count-n, bytes-size
		return err
	}
	if ret.MaxAge > 0 {
		if err := del(`DELETE FROM dragoman_traces WHERE start < $1`, cutoff); err != nil {
			return err
		}
	}
	if ret.MaxCount > 0 && count > int64(ret.MaxCount) {
		// Everything from the newest record beyond the limit down.
		if err := del(`DELETE FROM dragoman_traces WHERE seq <= (SELECT seq FROM dragoman_traces ORDER BY seq DESC OFFSET $1 LIMIT 1)`, ret.MaxCount); err != nil {
			return err
		}
	}
	if excess := bytes - ret.MaxBytes; ret.MaxBytes > 0 && excess > 0 {
		// The oldest records whose sizes add up to the excess: a running
		// sum in seq order, read until it reaches it.
		if err := del(`DELETE FROM dragoman_traces WHERE seq <= (SELECT seq FROM (
			SELECT seq, sum(size) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) AS upto FROM dragoman_traces) o
			WHERE upto >= $1 ORDER BY seq LIMIT 1)`, excess); err != nil {
			return err
		}
	}
	if gone > 0 {
		if err := tx.QueryRowContext(ctx, `UPDATE dragoman_trace_meta SET count = count - $1, bytes = bytes - $2 RETURNING count, bytes`, gone, freed).Scan(&count, &bytes); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.setTotals(count, bytes)
	return nil
}

// pgOver reports whether the table is beyond a retention limit.
func pgOver(ret Retention, count, bytes int64, oldest sql.NullInt64, cutoff int64) bool {
	return ret.MaxAge > 0 && oldest.Valid && oldest.Int64 < cutoff ||
		ret.MaxCount > 0 && count > int64(ret.MaxCount) ||
		ret.MaxBytes > 0 && bytes > ret.MaxBytes
}
