package gateway

import "time"

// Clock is the time the gateway's deadlines are read against: when an
// upstream marked down may be tried again, when a retry is due, how old a
// model listing or a discovery is, how long a lost runtime is remembered.
// Timeouts that bound one wait (a listing, a preparation, a connection)
// are the context's and run on the system's time.
type Clock interface {
	Now() time.Time
}

// systemClock is the default Clock.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

// now is the server's clock's time.
func (s *Server) now() time.Time { return s.clock.Now() }
