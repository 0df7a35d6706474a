package trace

import (
	"database/sql"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// readOnly makes path (a file or a directory) unwritable for this process:
// by its mode bits, or, for root, whom they do not stop, by the file
// system's immutable flag (FS_IOC_SETFLAGS, as chattr +i). The test is
// skipped where neither works.
func readOnly(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		mode := info.Mode().Perm()
		if err := os.Chmod(path, mode&^0o222); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(path, mode) })
		return
	}
	const fsIocGetflags, fsIocSetflags, fsImmutableFl = 0x80086601, 0x40086602, 0x10
	setFlags := func(on bool) error {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		var flags int
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocGetflags, uintptr(unsafe.Pointer(&flags))); e != 0 {
			return e
		}
		if on {
			flags |= fsImmutableFl
		} else {
			flags &^= fsImmutableFl
		}
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocSetflags, uintptr(unsafe.Pointer(&flags))); e != 0 {
			return e
		}
		return nil
	}
	if err := setFlags(true); err != nil {
		t.Skipf("running as root and %s cannot be made immutable: %v", path, err)
	}
	t.Cleanup(func() {
		if err := setFlags(false); err != nil {
			t.Errorf("%s stays immutable: %v", path, err)
		}
	})
}

// A store in a directory it cannot create a file in, or on a file it
// cannot write, keeps the records in memory with one warning; what a
// read-only file held stays readable.
func TestSQLiteReadOnly(t *testing.T) {
	check := func(t *testing.T, s *DB, log *logBuffer, old int) {
		t.Helper()
		if s.Failed() == nil || log.warnings() != 1 || !strings.Contains(log.String(), "memory only") {
			t.Fatalf("failed %v, log:\n%s", s.Failed(), log)
		}
		for i := 10; i < 15; i++ {
			s.Put(record(i))
		}
		s.Flush()
		for i := 10; i < 15; i++ {
			if _, ok := s.Get(record(i).ID); !ok {
				t.Errorf("record %d lost", i)
			}
		}
		if p, _ := s.List(Query{}); len(p.Records) != 5+old {
			t.Errorf("listed %d, want %d", len(p.Records), 5+old)
		}
		if log.warnings() != 1 {
			t.Errorf("log:\n%s", log)
		}
	}
	t.Run("directory", func(t *testing.T) {
		dir := t.TempDir()
		readOnly(t, dir)
		s, log := openTest(t, filepath.Join(dir, "traces.db"), Options{})
		check(t, s, log, 0)
	})
	t.Run("directory under it", func(t *testing.T) {
		dir := t.TempDir()
		readOnly(t, dir)
		s, log := openTest(t, filepath.Join(dir, "state", "dragoman", "traces.db"), Options{})
		check(t, s, log, 0)
	})
	t.Run("file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "traces.db")
		w, _ := openTest(t, path, Options{})
		for i := range 3 {
			w.Put(record(i))
		}
		w.Close()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			if _, err := os.Stat(p); err == nil {
				readOnly(t, p)
			}
		}
		s, log := openTest(t, path, Options{})
		check(t, s, log, 3)
	})
}

// A file another process holds locked for longer than the busy timeout:
// at start, and once writing.
func TestSQLiteLocked(t *testing.T) {
	lock := func(t *testing.T, path string) func() {
		t.Helper()
		db, err := sql.Open("sqlite", dsn(path, false, time.Second))
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS other (x)`); err != nil {
			t.Fatal(err)
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(`INSERT INTO other VALUES (1)`); err != nil { // holds the write lock
			t.Fatal(err)
		}
		return func() { tx.Rollback(); db.Close() }
	}
	t.Run("at start", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "traces.db")
		unlock := lock(t, path)
		defer unlock()
		s, log := openTest(t, path, Options{Timeout: 20 * time.Millisecond})
		if s.Failed() == nil || !strings.Contains(log.String(), "locked") {
			t.Fatalf("failed %v, log:\n%s", s.Failed(), log)
		}
		s.Put(record(1))
		if _, ok := s.Get(record(1).ID); !ok || log.warnings() != 1 {
			t.Errorf("%v\n%s", ok, log)
		}
	})
	t.Run("writing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "traces.db")
		s, log := openTest(t, path, Options{Timeout: 20 * time.Millisecond})
		s.Put(record(0))
		s.Flush()
		unlock := lock(t, path)
		defer unlock()
		s.Put(record(1))
		s.Flush()
		s.Put(record(2))
		s.Flush()
		if s.Failed() == nil || log.warnings() != 1 || !strings.Contains(log.String(), "locked") {
			t.Fatalf("failed %v, log:\n%s", s.Failed(), log)
		}
		if p, _ := s.List(Query{}); len(p.Records) != 3 {
			t.Errorf("listed %d", len(p.Records))
		}
	})
}

// A full file system: the file may not grow beyond a size (RLIMIT_FSIZE,
// which needs no privilege, in a child process of this test binary, so that
// the limit holds nowhere else). Writes fail as they would on a full disk;
// the store degrades with one warning and keeps every record in memory.
func TestSQLiteFullDisk(t *testing.T) {
	if dir := os.Getenv("DRAGOMAN_TEST_FULLDISK"); dir != "" {
		fullDiskChild(t, dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLiteFullDisk$", "-test.v")
	cmd.Env = append(os.Environ(), "DRAGOMAN_TEST_FULLDISK="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "CHILD OK") {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "degraded on") {
			t.Log(strings.TrimSpace(line))
		}
	}
}

func fullDiskChild(t *testing.T, dir string) {
	path := filepath.Join(dir, "traces.db")
	s, log := openTest(t, path, Options{Recent: 64})
	s.Put(record(0))
	s.Flush()
	if s.Failed() != nil {
		t.Fatal(s.Failed())
	}
	// From now on no file of this process grows beyond 256 KiB, and the
	// signal that would end it is ignored: write(2) fails with EFBIG.
	signal.Ignore(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: 256 << 10, Max: 256 << 10}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 32<<10)
	for i := 1; i < 40; i++ {
		r := record(i)
		r.Completion = big + strconv.Itoa(i)
		s.Put(r)
		s.Flush()
	}
	if s.Failed() == nil || log.warnings() != 1 {
		t.Fatalf("failed %v, log:\n%s", s.Failed(), log)
	}
	for i := range 40 {
		if _, ok := s.Get(record(i).ID); !ok {
			t.Fatalf("record %d lost", i)
		}
	}
	t.Logf("degraded on: %v", s.Failed())
	t.Log("CHILD OK")
}
