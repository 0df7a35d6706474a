package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/makeup"
)

// logBuffer is a slog.Logger writing into a buffer, safe for concurrent use.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(l, nil)) }

// warnings counts the warning lines logged.
func (l *logBuffer) warnings() int { return strings.Count(l.String(), "level=WARN") }

var t0 = time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)

// record makes record i: model m{i%3}, upstream u{i%2}, status 200 unless
// i%4 == 3 (502), diagnostics when i%5 == 0; started i seconds after t0.
func record(i int) *Record {
	r := &Record{ID: fmt.Sprintf("chatcmpl-%04d", i), API: "openai", Model: fmt.Sprintf("m%d", i%3), Start: t0.Add(time.Duration(i) * time.Second),
		Upstream: fmt.Sprintf("u%d", i%2), Runtime: "ollama", Mode: "own", Format: "hermes", Status: 200,
		Request: `{"model":"m","messages":[{"role":"user","content":"<b>hi</b> & more"}]}`, Prompt: "<|im_start|>user\nhi<|im_end|>\n",
		Completion: "Hello", Decisions: []string{"own mode"}, Calls: []chat.ToolCall{{ID: "call_1", Type: "function", Function: chat.FunctionCall{Name: "f", Arguments: `{"a":1}`}}},
		FinishReason: "stop", Timings: Timings{RenderMS: 0.25, TotalMS: float64(i) + 0.5}, Constraint: "lazy-grammar", Actions: []string{ActionContextRaised}}
	if i%4 == 3 {
		r.Status, r.Error = 502, "the runtime broke off"
	}
	if i%5 == 0 {
		r.Diagnostics = []Diagnostic{{Code: "bad_json", Message: "no", Offset: 3}}
	}
	return r
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A store closed and opened again has every record, byte for byte, the
// deferred work done before it was written; the summaries are the ring's.
// A read-only store beside it reads and exports the same.
func TestStoreKeepsRecordsAcrossRestart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		where := b.fresh(t)
		s, log := openTest(t, where, Options{Recent: 4})
		var want []string
		var ringList Page
		for i := range 10 {
			r := record(i)
			if i == 7 {
				r.Later = Defer(func() func(*Record) {
					m := &makeup.Makeup{Total: 42, Parts: []makeup.Part{{Kind: makeup.KindSystem, Name: "system", Tokens: 42}}}
					return func(r *Record) { r.Makeup = m; r.Decide("measured later") }
				})
			}
			if i == 8 { // what a JSON column would not keep as it is: key order, spaces, escapes
				r.Request = "{\"z\": 1,  \"a\": \"\\u00e9\\u0000\"}"
				r.Completion = "é\x00 \u2028 <&>"
			}
			s.Put(r)
		}
		s.Flush()
		ringList, _ = s.List(Query{})
		for i := range 10 {
			r, ok := s.Get(record(i).ID)
			if !ok {
				t.Fatalf("record %d missing before the restart", i)
			}
			want = append(want, asJSON(t, r))
		}
		if !strings.Contains(want[7], `"makeup":{"total":42`) || !strings.Contains(want[7], "measured later") {
			t.Fatalf("the deferred work is not in the record: %s", want[7])
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Written != 10 || st.Count != 10 || st.Dropped != 0 {
			t.Errorf("stats %+v", st)
		}

		s2, _ := openTest(t, where, Options{Recent: 4})
		for i := range 10 {
			r, ok := s2.Get(record(i).ID)
			if !ok {
				t.Fatalf("record %d lost in the restart", i)
			}
			if got := asJSON(t, r); got != want[i] {
				t.Errorf("record %d changed in the restart:\n got %s\nwant %s", i, got, want[i])
			}
		}
		list, err := s2.List(Query{})
		if err != nil || asJSON(t, list) != asJSON(t, ringList) || len(list.Records) != 10 {
			t.Errorf("list after the restart:\n%s\nbefore:\n%s (%v)", asJSON(t, list), asJSON(t, ringList), err)
		}
		if _, ok := s2.Get("nosuch"); ok {
			t.Error("a record that never was")
		}
		if log.warnings() != 0 {
			t.Errorf("warnings: %s", log)
		}
		// Read-only, beside the writer.
		ro, err := OpenReadOnly(where)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if r, ok := ro.Get(record(7).ID); !ok || asJSON(t, r) != want[7] {
			t.Errorf("read-only: %v %s", ok, asJSON(t, r))
		}
		raw, err := ro.Raw(record(8).ID)
		if err != nil || string(raw) != want[8] {
			t.Errorf("read-only, raw:\n got %s\nwant %s (%v)", raw, want[8], err)
		}
		var buf bytes.Buffer
		if n, err := ro.Export(t.Context(), Query{Model: "m1"}, &buf); err != nil || n != 3 || strings.Count(buf.String(), "\n") != 3 {
			t.Errorf("export: %d %v\n%s", n, err, buf.String())
		}
		if want := want[7] + "\n" + want[4] + "\n" + want[1] + "\n"; buf.String() != want {
			t.Errorf("export:\n got %s\nwant %s", buf.String(), want)
		}
	})
}

// Filters and paging, the same on the ring and on the file (and on the
// file with the newest records not written yet).
func TestListFiltersAndPaging(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		q    Query
		want func(r *Record) bool
	}{
		{"all", Query{}, func(r *Record) bool { return true }},
		{"model", Query{Model: "m1"}, func(r *Record) bool { return r.Model == "m1" }},
		{"upstream", Query{Upstream: "u0"}, func(r *Record) bool { return r.Upstream == "u0" }},
		{"status 5xx", Query{StatusMin: 500, StatusMax: 599}, func(r *Record) bool { return r.Status >= 500 }},
		{"status 200", Query{StatusMin: 200, StatusMax: 200}, func(r *Record) bool { return r.Status == 200 }},
		{"diagnostics", Query{HasDiagnostics: &yes}, func(r *Record) bool { return len(r.Diagnostics) > 0 }},
		{"no diagnostics", Query{HasDiagnostics: &no}, func(r *Record) bool { return len(r.Diagnostics) == 0 }},
		{"since", Query{Since: t0.Add(20 * time.Second)}, func(r *Record) bool { return !r.Start.Before(t0.Add(20 * time.Second)) }},
		{"until", Query{Until: t0.Add(20 * time.Second)}, func(r *Record) bool { return r.Start.Before(t0.Add(20 * time.Second)) }},
		{"model, 5xx, range", Query{Model: "m0", StatusMin: 500, Since: t0.Add(5 * time.Second), Until: t0.Add(40 * time.Second)},
			func(r *Record) bool {
				return r.Model == "m0" && r.Status >= 500 && !r.Start.Before(t0.Add(5*time.Second)) && r.Start.Before(t0.Add(40*time.Second))
			}},
	}
	const n = 50
	// Three records started at the same time: the id orders them (three,
	// so that a page of one ends within them, and so the database's
	// order, not only the merge's, is seen).
	mk := func(i int) *Record {
		r := record(i)
		if i == 31 || i == 32 {
			r.Start = record(30).Start
		}
		return r
	}
	stores := map[string]func(t *testing.T) Store{
		"ring": func(t *testing.T) Store {
			s := NewRing(n)
			for i := range n {
				s.Put(mk(i))
			}
			return s
		},
	}
	for _, b := range backends {
		stores[b.name] = func(t *testing.T) Store {
			s, _ := openTest(t, b.fresh(t), Options{Recent: -1}) // every record from the database
			for i := range n {
				s.Put(mk(i))
			}
			s.Flush()
			return s
		}
		stores[b.name+", last ones unwritten"] = func(t *testing.T) Store {
			s, _ := openTest(t, b.fresh(t), Options{Recent: 16})
			for i := range n - 10 {
				s.Put(mk(i))
			}
			s.Flush()
			// The last ten stay in the ring only: the writer fails them.
			s.opt.failWrite = func() error { return errors.New("test: no writes") }
			for i := n - 10; i < n; i++ {
				s.Put(mk(i))
			}
			s.Flush()
			return s
		}
	}
	for sname, open := range stores {
		t.Run(sname, func(t *testing.T) {
			s := open(t)
			for _, c := range cases {
				var want []string
				for i := n - 1; i >= 0; i-- {
					if r := mk(i); c.want(r) {
						want = append(want, r.ID)
					}
				}
				if c.name == "all" {
					// 31 and 30 started together: 31, the greater id, first.
					if k := slices.Index(want, "chatcmpl-0031"); k < 0 || want[k+1] != "chatcmpl-0030" {
						t.Fatalf("%s: the expectation is wrong: %v", c.name, want)
					}
				}
				for _, limit := range []int{0, 1, 3, 7} {
					q := c.q
					q.Limit = limit
					var got []string
					for pages := 0; ; pages++ {
						p, err := s.List(q)
						if err != nil {
							t.Fatal(err)
						}
						if limit > 0 && len(p.Records) > limit || pages > n {
							t.Fatalf("%s: page of %d (limit %d)", c.name, len(p.Records), limit)
						}
						for _, m := range p.Records {
							got = append(got, m.ID)
						}
						if p.Next == "" {
							break
						}
						q.After = p.Next
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s, limit %d:\n got %v\nwant %v", c.name, limit, got, want)
					}
				}
			}
			if _, err := s.List(Query{After: "garbage"}); !errors.Is(err, ErrCursor) {
				t.Errorf("a bad cursor: %v", err)
			}
		})
	}
}

// Retention: the oldest records go beyond the count, the age (by the
// store's clock) and the bytes.
func TestStoreRetention(t *testing.T) {
	ids := func(t *testing.T, s *DB) []string {
		t.Helper()
		s.Flush()
		p, err := s.List(Query{Limit: MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range p.Records {
			out = append(out, strings.TrimPrefix(m.ID, "chatcmpl-00"))
		}
		return out
	}
	forEachBackend(t, func(t *testing.T, b backend) {
		t.Run("count", func(t *testing.T) {
			where := b.fresh(t)
			s, _ := openTest(t, where, Options{Recent: -1, Retention: Retention{MaxCount: 5}})
			for i := range 12 {
				s.Put(record(i))
				s.Flush() // one transaction each, so that each trims
			}
			if got := ids(t, s); !slices.Equal(got, []string{"11", "10", "09", "08", "07"}) {
				t.Errorf("kept %v", got)
			}
			if st := s.Stats(); st.Count != 5 {
				t.Errorf("stats %+v", st)
			}
			// A batch of many at once trims to the limit too.
			for i := 12; i < 30; i++ {
				s.Put(record(i))
			}
			if got := ids(t, s); !slices.Equal(got, []string{"29", "28", "27", "26", "25"}) {
				t.Errorf("kept %v", got)
			}
			// Opened with a lower limit, it trims at once.
			s.Close()
			s2, _ := openTest(t, where, Options{Recent: -1, Retention: Retention{MaxCount: 2}})
			if got := ids(t, s2); !slices.Equal(got, []string{"29", "28"}) {
				t.Errorf("reopened, kept %v", got)
			}
			if st := s2.Stats(); st.Count != 2 {
				t.Errorf("stats %+v", st)
			}
		})
		t.Run("age", func(t *testing.T) {
			var mu sync.Mutex
			now := t0.Add(time.Hour)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			s, _ := openTest(t, b.fresh(t), Options{Recent: -1, Now: clock, Retention: Retention{MaxAge: time.Hour}})
			for i := range 10 {
				s.Put(record(i)) // t0 … t0+9s: none older than an hour
			}
			if got := ids(t, s); len(got) != 10 {
				t.Fatalf("kept %v", got)
			}
			mu.Lock()
			now = t0.Add(time.Hour + 5*time.Second + time.Millisecond) // records 0…5 are older than an hour
			mu.Unlock()
			s.Put(record(10))
			if got := ids(t, s); !slices.Equal(got, []string{"10", "09", "08", "07", "06"}) {
				t.Errorf("kept %v", got)
			}
			if st := s.Stats(); st.Count != 5 {
				t.Errorf("stats %+v", st)
			}
		})
		t.Run("bytes", func(t *testing.T) {
			plain := func(i int) *Record { // every one's JSON as long
				r := record(i)
				r.Status, r.Error, r.Diagnostics, r.Model, r.Upstream = 200, "", nil, "m", "u"
				return r
			}
			size := len(asJSON(t, plain(0)))
			s, _ := openTest(t, b.fresh(t), Options{Recent: -1, Retention: Retention{MaxBytes: int64(3*size + size/2)}})
			for i := range 10 {
				if len(asJSON(t, plain(i))) != size {
					t.Fatal("records of different sizes")
				}
				s.Put(plain(i))
			}
			if got := ids(t, s); !slices.Equal(got, []string{"09", "08", "07"}) {
				t.Errorf("kept %v", got)
			}
			if st := s.Stats(); st.Bytes != int64(3*size) || st.Count != 3 {
				t.Errorf("stats %+v (a record is %d bytes)", st, size)
			}
			s.Put(plain(10)) // one more: exactly one goes
			if got := ids(t, s); !slices.Equal(got, []string{"10", "09", "08"}) {
				t.Errorf("kept %v", got)
			}
			// A limit of exactly three records keeps three.
			s3, _ := openTest(t, b.fresh(t), Options{Recent: -1, Retention: Retention{MaxBytes: int64(3 * size)}})
			for i := range 5 {
				s3.Put(plain(i))
			}
			if got := ids(t, s3); !slices.Equal(got, []string{"04", "03", "02"}) {
				t.Errorf("a limit of three records: kept %v", got)
			}
		})
	})
}

// A store whose writes fail keeps the records in memory, readable and
// listed, with one warning.
func TestStoreDegradesWhenWritesFail(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, log := openTest(t, b.fresh(t), Options{Recent: 8})
		s.Put(record(0))
		s.Flush()
		s.opt.failWrite = func() error { return errors.New("disk I/O error (test)") }
		for i := 1; i < 5; i++ {
			s.Put(record(i))
			s.Flush()
		}
		checkDegraded(t, s, log, "disk I/O error (test)")
		for i := range 5 {
			if _, ok := s.Get(record(i).ID); !ok {
				t.Errorf("record %d lost", i)
			}
		}
		if p, _ := s.List(Query{}); len(p.Records) != 5 {
			t.Errorf("listed %d", len(p.Records))
		}
		if st := s.Stats(); st.Written != 1 {
			t.Errorf("stats %+v", st)
		}
	})
}

// checkDegraded checks that s keeps records in memory only, having said so
// once, with why (want).
func checkDegraded(t *testing.T, s *DB, log *logBuffer, want string) {
	t.Helper()
	if s.Failed() == nil || log.warnings() != 1 || !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "memory only") {
		t.Errorf("failed %v, log:\n%s", s.Failed(), log)
	}
}

// A full queue drops the write, counts it and warns once; no Put waits.
func TestStoreFullQueueDrops(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, log := openTest(t, b.fresh(t), Options{Recent: 8, Queue: 1})
		entered, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		s.opt.failWrite = func() error {
			once.Do(func() { close(entered); <-release })
			return nil
		}
		s.Put(record(0)) // the writer takes it and waits
		<-entered
		s.Put(record(1)) // queued
		s.Put(record(2)) // dropped
		s.Put(record(3)) // dropped
		if st := s.Stats(); st.Dropped != 2 {
			t.Errorf("stats %+v", st)
		}
		if log.warnings() != 1 || !strings.Contains(log.String(), "2 traces not written") && !strings.Contains(log.String(), "1 traces not written") {
			t.Errorf("log:\n%s", log)
		}
		close(release)
		s.Flush()
		if st := s.Stats(); st.Written != 2 || st.Dropped != 2 || s.Failed() != nil {
			t.Errorf("stats %+v, failed %v", st, s.Failed())
		}
		for i := range 4 {
			if _, ok := s.Get(record(i).ID); !ok { // in the ring
				t.Errorf("record %d", i)
			}
		}
	})
}

// Puts from many goroutines at once: every record written once, listed
// in order, and read back from the database.
func TestStoreConcurrentPuts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		s, log := openTest(t, b.fresh(t), Options{Recent: 16, Queue: 4096})
		const workers, each = 8, 40
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for k := range each {
					s.Put(record(w*each + k))
				}
			})
		}
		wg.Wait()
		s.Flush()
		if st := s.Stats(); st.Written != workers*each || st.Count != workers*each || st.Dropped != 0 || s.Failed() != nil {
			t.Fatalf("stats %+v, failed %v\n%s", st, s.Failed(), log)
		}
		var got []string
		q := Query{Limit: 100}
		for {
			p, err := s.List(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range p.Records {
				got = append(got, m.ID)
			}
			if p.Next == "" {
				break
			}
			q.After = p.Next
		}
		if len(got) != workers*each {
			t.Fatalf("listed %d", len(got))
		}
		for i, id := range got {
			if want := record(workers*each - 1 - i).ID; id != want {
				t.Fatalf("listed %s at %d, want %s", id, i, want)
			}
		}
		for i := range workers * each {
			if r, ok := s.Get(record(i).ID); !ok || asJSON(t, r) != asJSON(t, record(i)) {
				t.Fatalf("record %d: %v", i, ok)
			}
		}
	})
}
