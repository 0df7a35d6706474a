package trace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// benchStore is a store holding n records of about 4 KiB each (a prompt
// and a completion), written in batches, with none left in its ring: what
// a gateway finds in its file after n requests.
func benchStore(b *testing.B, n int) *DB {
	b.Helper()
	path := filepath.Join(b.TempDir(), "traces.db")
	s := OpenSQLite(path, Options{Recent: -1, Queue: 4096})
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
	if st := s.Stats(); st.Count != int64(n) {
		b.Fatalf("stats %+v", st)
	}
	return s
}

// BenchmarkList is the list query over 10,000 stored traces: the first
// page (100), a filtered first page, a page deep in the list (after 5,000),
// and a filter that matches few, so that the whole index is read.
//
//	go test ./trace -run XXX -bench BenchmarkList
func BenchmarkList(b *testing.B) {
	s := benchStore(b, 10_000)
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
	b.Run("ring first page", func(b *testing.B) {
		r := NewRing(256)
		for i := range 256 {
			r.Put(record(i))
		}
		for b.Loop() {
			r.List(Query{})
		}
	})
	info, _ := os.Stat(s.Where())
	b.Logf("file: %d bytes for 10,000 traces (%d bytes of records)", info.Size(), s.Stats().Bytes)
}

// BenchmarkWrite is the writer's cost per trace: Put, then the batch's
// transaction, measured by flushing every 64 records.
func BenchmarkWrite(b *testing.B) {
	s := OpenSQLite(filepath.Join(b.TempDir(), "traces.db"), Options{Recent: 256, Queue: 4096})
	defer s.Close()
	prompt := strings.Repeat("<|im_start|>user\nWhat is the weather in Paris today?<|im_end|>\n", 48)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		r := record(i)
		r.ID = fmt.Sprintf("chatcmpl-%08d", i)
		r.Prompt, r.Completion = prompt, strings.Repeat("Sunny. ", 64)
		s.Put(r)
		if i%64 == 63 {
			s.Flush()
		}
		i++
	}
	s.Flush()
}

// BenchmarkOpen is opening a store of 10,000 traces: what it adds to a
// gateway's start.
func BenchmarkOpen(b *testing.B) {
	path := benchStore(b, 10_000).Where()
	for b.Loop() {
		s := OpenSQLite(path, Options{})
		if s.Failed() != nil {
			b.Fatal(s.Failed())
		}
		s.Close()
	}
}
