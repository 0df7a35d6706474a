package trace

import (
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Two gateways on one PostgreSQL schema, writing at once with retention by
// count: each lists and reads the other's records, the table never holds
// more than the limit, and the totals row counts exactly what the table
// holds, however their trims interleave.
func TestPostgresReplicas(t *testing.T) {
	where := freshSchema(t)
	const limit, each = 100, 300
	a, logA := openTest(t, where, Options{Recent: -1, Retention: Retention{MaxCount: limit}})
	b, logB := openTest(t, where, Options{Recent: -1, Retention: Retention{MaxCount: limit}})
	var wg sync.WaitGroup
	for k, s := range []*DB{a, b} {
		wg.Go(func() {
			for i := range each {
				r := record(k*each + i)
				r.Upstream = "replica" + string(rune('a'+k))
				s.Put(r)
				if i%7 == 6 {
					s.Flush() // many small batches, so that the two trim often, at once
				}
			}
			s.Flush()
		})
	}
	wg.Wait()
	// One more from each, one after the other, so that the newest 100 hold
	// records of both, whichever replica finished first.
	for k, s := range []*DB{b, a} {
		r := record(2*each + k)
		r.Upstream = "replica" + string(rune('b'-k))
		s.Put(r)
		s.Flush()
	}
	for _, s := range []*DB{a, b} {
		if s.Failed() != nil {
			t.Fatalf("failed: %v\n%s%s", s.Failed(), logA, logB)
		}
	}
	var rows, size, count, bytes int64
	db := adminDB(t)
	schema := schemaOf(t, where)
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(size), 0) FROM `+schema+`.dragoman_traces`).Scan(&rows, &size); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count, bytes FROM `+schema+`.dragoman_trace_meta`).Scan(&count, &bytes); err != nil {
		t.Fatal(err)
	}
	if rows != limit || count != rows || bytes != size {
		t.Errorf("the table holds %d records (%d bytes), the totals say %d (%d bytes); the limit is %d", rows, size, count, bytes, limit)
	}
	if st := a.Stats(); st.Written != each+1 || st.Count > limit {
		t.Errorf("a: %+v", st)
	}
	// What b wrote, a lists and reads (its ring keeps nothing), and the
	// other way round.
	for _, c := range []struct {
		s        *DB
		upstream string
	}{{a, "replicab"}, {b, "replicaa"}} {
		p, err := c.s.List(Query{Upstream: c.upstream, Limit: MaxLimit})
		if err != nil || len(p.Records) == 0 {
			t.Fatalf("%s: %v %v", c.upstream, len(p.Records), err)
		}
		if r, ok := c.s.Get(p.Records[0].ID); !ok || r.Upstream != c.upstream {
			t.Errorf("%s: %v %+v", c.upstream, ok, r)
		}
	}
	all, _ := a.List(Query{Limit: MaxLimit})
	if len(all.Records) != limit {
		t.Errorf("listed %d", len(all.Records))
	}
}

// proxy is a TCP relay on loopback in front of the server: cut makes the
// server unreachable for everyone who came through it, as a server that
// stopped (or a network that broke) would.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { io.Copy(u, c); u.Close() }()
			go func() { io.Copy(c, u); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *proxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// via is rawURL pointed at the proxy.
func (p *proxy) via(t *testing.T, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// limitedRole makes a login role of t's own with the rights the store
// needs on schema's tables (made first, by the admin role), dropped after
// t, and returns where with it as the user.
func limitedRole(t *testing.T, where string) (role, rawURL string) {
	t.Helper()
	schema := schemaOf(t, where)
	s := OpenPostgres(where, Options{Log: discard}) // the tables, made by a role that may
	if s.Failed() != nil {
		t.Fatal(s.Failed())
	}
	s.Close()
	role = uniqueName("dragoman_role")
	sqlExec(t, `CREATE ROLE `+role+` LOGIN PASSWORD 'secret-pw'`,
		`GRANT USAGE ON SCHEMA `+schema+` TO `+role,
		`GRANT SELECT, INSERT, DELETE ON `+schema+`.dragoman_traces TO `+role,
		`GRANT SELECT, UPDATE ON `+schema+`.dragoman_trace_meta TO `+role)
	t.Cleanup(func() {
		sqlExec(t, `REVOKE ALL ON ALL TABLES IN SCHEMA `+schema+` FROM `+role, `REVOKE ALL ON SCHEMA `+schema+` FROM `+role, `DROP ROLE `+role)
	})
	u, err := url.Parse(where)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, "secret-pw")
	return role, u.String()
}

// A server that is down, refuses the role or a permission, is full, or
// goes away while the store writes: the store keeps the records in memory
// with one warning (which shows no password), reads what it still can, and
// never fails a Put, a List or a Get.
func TestPostgresDegrades(t *testing.T) {
	base := postgresURL(t)
	// after checks a store that degraded (or did not, failed empty).
	after := func(t *testing.T, s *DB, log *logBuffer, want string, old int) {
		t.Helper()
		for i := 10; i < 15; i++ {
			s.Put(record(i))
		}
		s.Flush()
		checkDegraded(t, s, log, want)
		for i := 10; i < 15; i++ {
			if _, ok := s.Get(record(i).ID); !ok {
				t.Errorf("record %d lost", i)
			}
		}
		p, err := s.List(Query{})
		if err != nil || len(p.Records) != 5+old {
			t.Errorf("listed %d, want %d (%v)", len(p.Records), 5+old, err)
		}
		if strings.Contains(log.String(), "secret-pw") || strings.Contains(s.Where(), "secret-pw") {
			t.Errorf("the password shows: %s\n%s", s.Where(), log)
		}
		if s.Close() != nil {
			t.Error("close")
		}
	}
	t.Run("refused", func(t *testing.T) {
		u, _ := url.Parse(base)
		u.Host, u.User = closedPort(t), url.UserPassword("someone", "secret-pw")
		s, log := openTest(t, u.String(), Options{Recent: 8})
		after(t, s, log, "connect", 0)
	})
	t.Run("wrong password", func(t *testing.T) {
		_, rawURL := limitedRole(t, freshSchema(t))
		u, _ := url.Parse(rawURL)
		u.User = url.UserPassword(u.User.Username(), "not-the-secret-pw")
		s, log := openTest(t, u.String(), Options{Recent: 8})
		after(t, s, log, "password authentication failed", 0)
	})
	t.Run("a role that may not create the tables", func(t *testing.T) {
		where := freshSchema(t)
		role := uniqueName("dragoman_role")
		sqlExec(t, `CREATE ROLE `+role+` LOGIN PASSWORD 'secret-pw'`, `GRANT USAGE ON SCHEMA `+schemaOf(t, where)+` TO `+role)
		t.Cleanup(func() { sqlExec(t, `REVOKE ALL ON SCHEMA `+schemaOf(t, where)+` FROM `+role, `DROP ROLE `+role) })
		u, _ := url.Parse(where)
		u.User = url.UserPassword(role, "secret-pw")
		s, log := openTest(t, u.String(), Options{Recent: 8})
		after(t, s, log, "permission denied for schema", 0)
		if log.warnings() != 1 { // no tables: nothing to read, and no warning of reading
			t.Errorf("log:\n%s", log)
		}
	})
	t.Run("a role that may only read", func(t *testing.T) {
		where := freshSchema(t)
		role, rawURL := limitedRole(t, where)
		w, _ := openTest(t, where, Options{})
		for i := range 3 {
			w.Put(record(i))
		}
		w.Close()
		sqlExec(t, `REVOKE INSERT, DELETE ON `+schemaOf(t, where)+`.dragoman_traces FROM `+role)
		s, log := openTest(t, rawURL, Options{Recent: 8})
		after(t, s, log, "may not write the tables", 3) // what the tables held stays listed
	})
	t.Run("permission revoked while writing", func(t *testing.T) {
		where := freshSchema(t)
		role, rawURL := limitedRole(t, where)
		s, log := openTest(t, rawURL, Options{Recent: 8})
		for i := range 3 {
			s.Put(record(i))
		}
		s.Flush()
		if s.Failed() != nil {
			t.Fatal(s.Failed())
		}
		sqlExec(t, `REVOKE INSERT ON `+schemaOf(t, where)+`.dragoman_traces FROM `+role)
		after(t, s, log, "permission denied for table dragoman_traces", 3)
	})
	t.Run("full", func(t *testing.T) {
		// What a server whose disk is full answers an insert (SQLSTATE
		// 53100), raised by a trigger: PostgreSQL has no quota to fill.
		where := freshSchema(t)
		s, log := openTest(t, where, Options{Recent: 8})
		for i := range 3 {
			s.Put(record(i))
		}
		s.Flush()
		schema := schemaOf(t, where)
		sqlExec(t, `CREATE FUNCTION `+schema+`.fill_up() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'could not extend file "base/16384/16385": No space left on device' USING ERRCODE = 'disk_full'; END $$`,
			`CREATE TRIGGER fill_up BEFORE INSERT ON `+schema+`.dragoman_traces FOR EACH ROW EXECUTE FUNCTION `+schema+`.fill_up()`)
		after(t, s, log, "No space left on device (SQLSTATE 53100)", 3)
	})
	t.Run("server gone while writing", func(t *testing.T) {
		where := freshSchema(t)
		u, _ := url.Parse(where)
		p := newProxy(t, u.Host)
		s, log := openTest(t, p.via(t, where), Options{Recent: 8})
		for i := range 3 {
			s.Put(record(i))
		}
		s.Flush()
		if s.Failed() != nil {
			t.Fatal(s.Failed())
		}
		p.cut()
		after(t, s, log, "memory only", 3) // the server is out of reach: the ring lists the 8 it holds
	})
	t.Run("a later schema", func(t *testing.T) {
		where := freshSchema(t)
		w, _ := openTest(t, where, Options{})
		w.Put(record(0))
		w.Close()
		sqlExec(t, `UPDATE `+schemaOf(t, where)+`.dragoman_trace_meta SET version = 2`)
		s, log := openTest(t, where, Options{Recent: 8})
		after(t, s, log, "later Dragoman (schema 2; this one writes 1)", 1)
	})
	t.Run("a URL that does not parse", func(t *testing.T) {
		s, log := openTest(t, "postgres://someone:secret-pw@127.0.0.1:notaport/db", Options{Recent: 8})
		after(t, s, log, "memory only", 0)
	})
}

// The tables made by replicas starting at once: made once, and every
// replica writes.
func TestPostgresReplicasStartTogether(t *testing.T) {
	where := freshSchema(t)
	stores := make([]*DB, 6)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() { stores[i] = OpenPostgres(where, Options{Log: discard}) })
	}
	wg.Wait()
	for i, s := range stores {
		defer s.Close()
		if s.Failed() != nil {
			t.Fatalf("replica %d: %v", i, s.Failed())
		}
		s.Put(record(i))
		s.Flush()
	}
	p, err := stores[0].List(Query{})
	var ids []string
	for _, m := range p.Records {
		ids = append(ids, m.ID)
	}
	if err != nil || !slices.Equal(ids, []string{record(5).ID, record(4).ID, record(3).ID, record(2).ID, record(1).ID, record(0).ID}) {
		t.Errorf("%v %v", ids, err)
	}
}

// dragoman traces reads a server read-only: it writes nothing, and says
// what is wrong with a server that has no store.
func TestPostgresReadOnly(t *testing.T) {
	where := freshSchema(t)
	if _, err := OpenReadOnly(where); err == nil || !strings.Contains(err.Error(), "not a trace store") {
		t.Errorf("an empty schema: %v", err)
	}
	w, _ := openTest(t, where, Options{})
	w.Put(record(1))
	w.Close()
	ro, err := OpenReadOnly(where)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.db.Exec(`DELETE FROM dragoman_traces`); err == nil || !strings.Contains(err.Error(), "read-only transaction") {
		t.Errorf("a read-only store deleted: %v", err)
	}
	ro.Put(record(2))
	ro.Flush()
	if p, _ := ro.List(Query{}); len(p.Records) != 1 || p.Records[0].ID != record(1).ID {
		t.Errorf("%+v", p)
	}
	u, _ := url.Parse(where)
	u.Host = closedPort(t)
	if _, err := OpenReadOnly(u.String()); err == nil || errors.Is(err, nil) {
		t.Error("a server that is not there")
	}
}

// A real server stopped while a store writes to it (a cluster of this
// test's own, made and started by .ci/postgres.sh, stopped by it too):
// the store keeps the records in memory with one warning.
func TestPostgresServerStopped(t *testing.T) {
	postgresURL(t) // the same set-up as every PostgreSQL test
	script, err := filepath.Abs(filepath.Join("..", ".ci", "postgres.sh"))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "dragoman-pgstop-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	stop := func() {
		if out, err := exec.Command("bash", script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("stopping the server: %v\n%s", err, out)
		}
	}
	out, err := exec.Command("bash", script, "start", dir).Output()
	t.Cleanup(stop) // also when start failed half-way
	if err != nil {
		t.Fatalf("starting a server: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	s, log := openTest(t, lines[len(lines)-1], Options{Recent: 8})
	for i := range 3 {
		s.Put(record(i))
	}
	s.Flush()
	if s.Failed() != nil || s.Stats().Written != 3 {
		t.Fatalf("%v %+v", s.Failed(), s.Stats())
	}
	stop()
	for i := 3; i < 8; i++ {
		s.Put(record(i))
		s.Flush()
	}
	checkDegraded(t, s, log, "memory only")
	for i := range 8 {
		if _, ok := s.Get(record(i).ID); !ok {
			t.Errorf("record %d lost", i)
		}
	}
	if p, err := s.List(Query{}); err != nil || len(p.Records) != 8 {
		t.Errorf("listed %d (%v)", len(p.Records), err)
	}
	t.Logf("degraded on: %v", s.Failed())
}

// Another replica trimming at the moment this one has read the totals: it
// waits for this one's trim (the totals row's lock) and then finds nothing
// more to delete, so the table keeps exactly what the limit allows. Were
// the totals read without the lock, the other would trim first and this
// one, acting on the totals it read before, would delete again.
func TestPostgresTrimsTakeTurns(t *testing.T) {
	where := freshSchema(t)
	schema := schemaOf(t, where)
	plain := func(i int) *Record {
		r := record(i)
		r.Status, r.Error, r.Diagnostics, r.Model, r.Upstream = 200, "", nil, "m", "u"
		return r
	}
	size := int64(len(asJSON(t, plain(0))))
	s, log := openTest(t, where, Options{Recent: -1, Retention: Retention{MaxBytes: 3 * size}})
	for i := range 3 {
		s.Put(plain(i))
	}
	s.Flush()
	// The other replica: its trim as the store's, by hand, on its own
	// connection.
	other := func() error {
		tx, err := adminDB(t).Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var pid int
		var bytes int64
		if err := tx.QueryRow(`SELECT pg_backend_pid()`).Scan(&pid); err != nil {
			return err
		}
		otherPID.Store(int64(pid))
		if err := tx.QueryRow(`SELECT bytes FROM ` + schema + `.dragoman_trace_meta FOR UPDATE`).Scan(&bytes); err != nil {
			return err
		}
		if bytes > 3*size {
			if _, err := tx.Exec(`WITH d AS (DELETE FROM ` + schema + `.dragoman_traces WHERE seq = (SELECT min(seq) FROM ` + schema + `.dragoman_traces) RETURNING size)
				UPDATE ` + schema + `.dragoman_trace_meta SET count = count - 1, bytes = bytes - (SELECT size FROM d)`); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	done := make(chan error, 1)
	var once sync.Once
	s.opt.trimLocked = func() {
		once.Do(func() {
			go func() { done <- other() }()
			// Until the other has trimmed, or waits for this one's lock.
			for range 3000 {
				select {
				case err := <-done:
					done <- err
					return
				default:
				}
				var waiting bool
				if pid := otherPID.Load(); pid != 0 {
					adminDB(t).QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock')`, pid).Scan(&waiting)
				}
				if waiting {
					return
				}
				time.Sleep(time.Millisecond) // a state of the server's, not a channel's: looked at again
			}
			t.Error("the other replica neither trimmed nor waited")
		})
	}
	s.Put(plain(3)) // four records' bytes: one must go
	s.Flush()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var rows, bytes int64
	if err := adminDB(t).QueryRow(`SELECT count(*), coalesce(sum(size), 0) FROM `+schema+`.dragoman_traces`).Scan(&rows, &bytes); err != nil {
		t.Fatal(err)
	}
	if rows != 3 || bytes != 3*size || s.Failed() != nil {
		t.Errorf("the table keeps %d records (%d bytes), want 3 (%d): %v\n%s", rows, bytes, 3*size, s.Failed(), log)
	}
}

// otherPID is the backend of TestPostgresTrimsTakeTurns's other replica.
var otherPID atomic.Int64
