package trace

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Store keeps finished records. The gateway puts each request's record when
// the request ends and reads them back for the trace pages and
// GET /v1/dragoman/requests. Two implementations: Ring, the most recent
// records in memory, and SQLite, every record in a file within the
// retention limits (with a Ring in front for the records not written yet).
type Store interface {
	// Put stores a finished record and takes ownership of it. It never
	// blocks on I/O: a store that writes does so in the background.
	Put(r *Record)
	// Get returns a copy of the record with id, its deferred work done.
	Get(id string) (Record, bool)
	// List returns the summaries of the records q selects, the most recent
	// first (by Start, then ID), one page of them.
	List(q Query) (Page, error)
	// Flush waits until every record put so far is written (or dropped).
	Flush()
	// Close flushes and releases the store; Put after Close keeps nothing.
	Close() error
}

// Query selects records. The zero value selects all of them, the first
// DefaultLimit.
type Query struct {
	// Model and Upstream, when set, must equal the record's (the model
	// name the client asked for; the upstream's name).
	Model, Upstream string
	// StatusMin and StatusMax bound the HTTP status the client got (both
	// inclusive; 0 leaves that side open).
	StatusMin, StatusMax int
	// HasDiagnostics, when set, keeps the records with (true) or without
	// (false) diagnostics.
	HasDiagnostics *bool
	// Since and Until bound the start (Since inclusive, Until exclusive);
	// zero leaves that side open.
	Since, Until time.Time
	// After is the cursor of the page before (Page.Next): only records
	// older than the last one it listed.
	After string
	// Limit is the page's size; 0 is DefaultLimit, and it is at most
	// MaxLimit.
	Limit int
}

// The page sizes of a Query.
const (
	DefaultLimit = 100
	MaxLimit     = 1000
)

// Page is one page of a List.
type Page struct {
	Records []Summary `json:"requests"`
	// Next is the cursor of the next page (Query.After); empty on the last.
	Next string `json:"next,omitempty"`
}

// Summary is what a list shows of a record.
type Summary struct {
	ID           string    `json:"id"`
	API          string    `json:"api"`
	Model        string    `json:"model"`
	Start        time.Time `json:"start"`
	Status       int       `json:"status"`
	Upstream     string    `json:"upstream,omitempty"`
	Runtime      string    `json:"runtime,omitempty"`
	Mode         string    `json:"mode,omitempty"`
	Format       string    `json:"format,omitempty"`
	Calls        int       `json:"calls"`
	Diagnostics  int       `json:"diagnostics"`
	FinishReason string    `json:"finish_reason,omitempty"`
	Error        string    `json:"error,omitempty"`
	TotalMS      float64   `json:"total_ms"`
}

// Summarize is r's summary.
func Summarize(r *Record) Summary {
	return Summary{ID: r.ID, API: r.API, Model: r.Model, Start: r.Start, Status: r.Status, Upstream: r.Upstream, Runtime: r.Runtime,
		Mode: r.Mode, Format: r.Format, Calls: len(r.Calls), Diagnostics: len(r.Diagnostics), FinishReason: r.FinishReason,
		Error: r.Error, TotalMS: r.Timings.TotalMS}
}

// limit is q's page size.
func (q Query) limit() int {
	switch {
	case q.Limit <= 0:
		return DefaultLimit
	case q.Limit > MaxLimit:
		return MaxLimit
	}
	return q.Limit
}

// matches reports whether q selects s (its cursor included).
func (q Query) matches(s *Summary, after cursor) bool {
	switch {
	case q.Model != "" && s.Model != q.Model,
		q.Upstream != "" && s.Upstream != q.Upstream,
		q.StatusMin != 0 && s.Status < q.StatusMin,
		q.StatusMax != 0 && s.Status > q.StatusMax,
		q.HasDiagnostics != nil && (s.Diagnostics > 0) != *q.HasDiagnostics,
		!q.Since.IsZero() && s.Start.Before(q.Since),
		!q.Until.IsZero() && !s.Start.Before(q.Until):
		return false
	}
	return after.zero() || newer(after.start, after.id, s.Start.UnixNano(), s.ID)
}

// newer reports whether (start, id) a comes before b in a list: a started
// later, or at the same time with a greater id.
func newer(aStart int64, aID string, bStart int64, bID string) bool {
	return aStart > bStart || (aStart == bStart && aID > bID)
}

// sortSummaries puts summaries in list order, the most recent first.
func sortSummaries(s []Summary) {
	slices.SortFunc(s, func(a, b Summary) int {
		if c := cmp.Compare(b.Start.UnixNano(), a.Start.UnixNano()); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
}

// cursor is a position in a list: the last record a page showed.
type cursor struct {
	start int64 // Unix nanoseconds
	id    string
}

func (c cursor) zero() bool { return c.id == "" }

// String is the cursor as Page.Next carries it: "NANOS_ID".
func (c cursor) String() string { return strconv.FormatInt(c.start, 10) + "_" + c.id }

func cursorOf(s Summary) cursor { return cursor{start: s.Start.UnixNano(), id: s.ID} }

// ErrCursor is the error of a Query whose After is no cursor a List gave.
var ErrCursor = errors.New("not a cursor that a list returned (next)")

func parseCursor(s string) (cursor, error) {
	if s == "" {
		return cursor{}, nil
	}
	n, id, ok := strings.Cut(s, "_")
	start, err := strconv.ParseInt(n, 10, 64)
	if !ok || err != nil || id == "" {
		return cursor{}, fmt.Errorf("after %q: %w", s, ErrCursor)
	}
	return cursor{start: start, id: id}, nil
}

// page cuts a sorted list of matching summaries to q's limit.
func page(all []Summary, limit int) Page {
	if len(all) <= limit {
		return Page{Records: all}
	}
	all = all[:limit]
	return Page{Records: all, Next: cursorOf(all[limit-1]).String()}
}

// ParseStatus reads a status filter: a status ("404"), a class ("4xx"),
// or a range ("400-499"), as StatusMin and StatusMax.
func ParseStatus(s string) (lo, hi int, err error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if len(s) == 3 && strings.HasSuffix(s, "xx") && s[0] >= '1' && s[0] <= '5' {
		lo = int(s[0]-'0') * 100
		return lo, lo + 99, nil
	}
	a, b, isRange := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(a)
	hi = lo
	var err2 error
	if isRange {
		hi, err2 = strconv.Atoi(b)
	}
	if err1 != nil || err2 != nil || lo < 100 || hi > 599 || lo > hi {
		return 0, 0, fmt.Errorf("status %q: want a status (404), a class (4xx) or a range (400-499)", s)
	}
	return lo, hi, nil
}

// ParseTime reads a time bound: RFC 3339 ("2026-12-02T05:00:00Z"), a date
// ("2026-12-02", midnight UTC), or a duration before now ("90m", "24h",
// "7d").
func ParseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.Add(-time.Duration(d) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("time %q: want RFC 3339 (2026-12-02T05:00:00Z), a date (2026-12-02) or a duration before now (90m, 24h, 7d)", s)
}
