package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dragoman-dev/dragoman/internal/pgtest"
)

// The store's benchmarks run on the SQLite file and, where
// $DRAGOMAN_POSTGRES names a server, on PostgreSQL (a schema of their own):
//
//	go test ./trace -run XXX -bench 'List|Write|Open'

// benchBackends are the databases a benchmark runs on: each a sub-benchmark
// whose fresh store is where.
func benchBackends(b *testing.B, f func(b *testing.B, where string)) {
	b.Run("sqlite", func(b *testing.B) { f(b, filepath.Join(b.TempDir(), "traces.db")) })
	b.Run("postgres", func(b *testing.B) {
		if os.Getenv(pgtest.Env) == "" {
			b.Skip(pgtest.Env + " is unset: no PostgreSQL side")
		}
		f(b, pgtest.Schema(b))
	})
}

// benchStore is the store at where holding n records of about 4 KiB each
// (a prompt and a completion), written in batches, with none left in its
// ring: what a gateway finds in its database after n requests.
func benchStore(b *testing.B, where string, n int) *DB {
	b.Helper()
	s := Open(where, Options{Recent: -1, Queue: 4096})
	b.Cleanup(func() { s.Close() })
	prompt := strings.Repeat("<|im_start|>user\nWhat is the weather in Paris today?<|im_end|>\n", 48)
	for i := range n {
		r := record(i)
		r.Start = time.Now().Add(time.Duration(i-n) * time.Second)
		r.Prompt, r.Completion = prompt, strings.Repeat("Sunny. ", 64)
		s.Put(r)
		if i%1000 == 999 {
			s.Flush()
		}
	}
	s.Flush()
	if st := s.Stats(); st.Count != int64(n) || s.Failed() != nil {
		b.Fatalf("stats %+v, %v", st, s.Failed())
	}
	return s
}

// BenchmarkList is the list query over 10,000 stored traces: the first
// page (100), a filtered first page, a page deep in the list (after 5,000),
// and a filter that matches few, so that the whole index is read.
func BenchmarkList(b *testing.B) {
	benchBackends(b, func(b *testing.B, where string) {
		s := benchStore(b, where, 10_000)
		yes := true
		p, _ := s.List(Query{Limit: 1000})
		for range 4 {
			p, _ = s.List(Query{Limit: 1000, After: p.Next})
		}
		deep := p.Next
		for _, c := range []struct {
			name string
			q    Query
		}{
			{"first page", Query{}},
			{"model", Query{Model: "m1"}},
			{"5xx with diagnostics", Query{StatusMin: 500, StatusMax: 599, HasDiagnostics: &yes}},
			{"after 5000", Query{After: deep}},
			{"model, since 1h", Query{Model: "m2", Since: time.Now().Add(-time.Hour)}},
			{"none match", Query{Model: "nosuch"}},
			{"upstream none match", Query{Upstream: "nosuch"}},
		} {
			b.Run(c.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.List(c.q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run("get", func(b *testing.B) {
			i := 0
			for b.Loop() {
				if _, ok := s.Get(record(i % 10_000).ID); !ok {
					b.Fatal("missing")
				}
				i += 37
			}
		})
		if info, err := os.Stat(where); err == nil {
			b.Logf("file: %d bytes for 10,000 traces (%d bytes of records)", info.Size(), s.Stats().Bytes)
		}
	})
	b.Run("ring first page", func(b *testing.B) {
		r := NewRing(256)
		for i := range 256 {
			r.Put(record(i))
		}
		for b.Loop() {
			r.List(Query{})
		}
	})
}

// BenchmarkWrite is the writer's cost per trace: Put, then the batch's
// transaction, measured by flushing every 64 records; beside the ring's
// Put. On PostgreSQL it also reports the server's CPU time per trace
// (server-cpu-µs/op, read from /proc; this benchmark's own process's is
// in ns/op's wall time, the rest the server's answer).
func BenchmarkWrite(b *testing.B) {
	prompt := strings.Repeat("<|im_start|>user\nWhat is the weather in Paris today?<|im_end|>\n", 48)
	rec := func(i int) *Record {
		r := record(i)
		r.ID = fmt.Sprintf("chatcmpl-%08d", i)
		r.Prompt, r.Completion = prompt, strings.Repeat("Sunny. ", 64)
		return r
	}
	b.Run("ring", func(b *testing.B) {
		s := NewRing(256)
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			s.Put(rec(i))
			i++
		}
	})
	benchBackends(b, func(b *testing.B, where string) {
		s := Open(where, Options{Recent: 256, Queue: 4096})
		defer s.Close()
		if s.Failed() != nil {
			b.Fatal(s.Failed())
		}
		pg := IsURL(where)
		var cpu0 time.Duration
		if pg {
			cpu0 = pgtest.CPU()
		}
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			s.Put(rec(i))
			if i%64 == 63 {
				s.Flush()
			}
			i++
		}
		s.Flush()
		if pg {
			b.ReportMetric(float64((pgtest.CPU()-cpu0).Microseconds())/float64(i), "server-cpu-µs/op")
		}
	})
}

// BenchmarkOpen is opening a store of 10,000 traces: what it adds to a
// gateway's start.
func BenchmarkOpen(b *testing.B) {
	benchBackends(b, func(b *testing.B, where string) {
		benchStore(b, where, 10_000).Close()
		for b.Loop() {
			s := Open(where, Options{})
			if s.Failed() != nil {
				b.Fatal(s.Failed())
			}
			s.Close()
		}
	})
}
