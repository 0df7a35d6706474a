package gateway

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// metrics counts requests for GET /metrics, in Prometheus' text format.
type metrics struct {
	inFlight atomic.Int64
	mu       sync.Mutex
	total    map[[2]string]uint64 // api, status → count
}

func (m *metrics) started() { m.inFlight.Add(1) }

func (m *metrics) finished(api string, status int) {
	m.inFlight.Add(-1)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.total == nil {
		m.total = map[[2]string]uint64{}
	}
	m.total[[2]string{api, strconv.Itoa(status)}]++
}

func (m *metrics) serve(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	fmt.Fprintln(w, "# HELP dragoman_requests_in_flight Chat requests being answered.")
	fmt.Fprintln(w, "# TYPE dragoman_requests_in_flight gauge")
	fmt.Fprintf(w, "dragoman_requests_in_flight %d\n", m.inFlight.Load())
	fmt.Fprintln(w, "# HELP dragoman_requests_total Chat requests answered, by client API and HTTP status.")
	fmt.Fprintln(w, "# TYPE dragoman_requests_total counter")
	m.mu.Lock()
	keys := make([][2]string, 0, len(m.total))
	for k := range m.total {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int {
		if a[0] != b[0] {
			return strings.Compare(a[0], b[0])
		}
		return strings.Compare(a[1], b[1])
	})
	for _, k := range keys {
		fmt.Fprintf(w, "dragoman_requests_total{api=%q,status=%q} %d\n", k[0], k[1], m.total[k])
	}
	m.mu.Unlock()
}
