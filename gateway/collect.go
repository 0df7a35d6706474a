package gateway

import (
	"errors"
	"net/http"
	"time"

	"github.com/dragoman-dev/dragoman/chat"
	"github.com/dragoman-dev/dragoman/trace"
)

// collected is a non-streamed answer: its deltas gathered into a
// chat.Response, which the dialect's write encodes once the pipeline is
// done. Calls come to it whole (streamsCalls is false).
type collected struct {
	resp    chat.Response
	failure error // set when the upstream broke off; resp has what came before
	// write encodes the response, or the failure with what came before it,
	// and returns the HTTP status.
	write func(w http.ResponseWriter, rec *trace.Record, c *collected) int
}

func (c *collected) begin(id, model string, _ int) error {
	c.resp.ID, c.resp.Model, c.resp.Created = id, model, time.Now().Unix()
	return nil
}

func (c *collected) emit(d chat.Delta) error { c.resp.Add(d); return nil }
func (c *collected) streamsCalls() bool      { return false }
func (c *collected) fail(err error) error    { c.failure = err; return nil }
func (c *collected) begun() bool             { return false }

// errNoFinish is what a collected answer that neither finished nor failed
// reports (the pipeline always ends with one; this is a guard, not a path).
var errNoFinish = errors.New("the answer ended without finishing")

// broken returns why the answer did not finish, or nil when it did.
func (c *collected) broken() error {
	if c.failure != nil {
		return c.failure
	}
	if c.resp.Finish == nil {
		return errNoFinish
	}
	return nil
}

func (c *collected) complete(w http.ResponseWriter, rec *trace.Record) int {
	return c.write(w, rec, c)
}
