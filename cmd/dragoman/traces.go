package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/dragoman-dev/dragoman/gateway"
	"github.com/dragoman-dev/dragoman/trace"
)

// dragoman traces: the trace store dragoman serve writes, read from the
// command line (read-only, while a gateway has it open too).

const tracesUsage = `usage: dragoman traces list   [-db FILE|URL | -config FILE] [filters] [-limit N] [-after CURSOR] [-json]
       dragoman traces show   [-db FILE|URL | -config FILE] [-json] ID
       dragoman traces export [-db FILE|URL | -config FILE] [filters] [-limit N] [-o FILE]

Reads the traces dragoman serve keeps (its trace store: an SQLite file, or a
PostgreSQL database that several gateways share), opened read-only: it works
while gateways write to it.

  list    the requests, the most recent first, as a table (-json: as
          GET /v1/dragoman/requests gives them); -limit a page (default 100),
          -after the cursor the previous page printed
  show    one request's trace: a readable summary, or -json the record as
          stored (what GET /v1/dragoman/requests/ID returns)
  export  the records, the most recent first, as JSON Lines (one record a
          line), to stdout or -o FILE: to attach to a bug report

The store: -db (a file, or postgres://user:password@host:5432/database), else
the config's traces.db (-config), else $XDG_STATE_HOME/dragoman/traces.db, else
~/.local/state/dragoman/traces.db.

Filters (list and export):
  -model NAME        the model the client asked for
  -upstream NAME     the upstream's name (as the trace's "upstream")
  -status S          a status (404), a class (4xx) or a range (400-499)
  -diagnostics B     true: only requests with diagnostics; false: only without
  -since T, -until T RFC 3339 (2026-12-02T05:00:00Z), a date (2026-12-02), or
                     a duration before now (90m, 24h, 7d)

`

func runTraces(args []string, e *env) int {
	fail := failer("traces", e)
	if len(args) == 0 {
		fmt.Fprint(e.stderr, tracesUsage)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(e.stdout, tracesUsage)
		return 0
	case "list", "show", "export":
	default:
		return fail(2, "unknown subcommand %q: want list, show or export (dragoman traces -h)", args[0])
	}
	sub := args[0]
	fs := flag.NewFlagSet("traces "+sub, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	db := fs.String("db", "", "the trace store: a file, or a PostgreSQL URL (default: the config's traces.db, else $XDG_STATE_HOME/dragoman/traces.db or ~/.local/state/dragoman/traces.db)")
	configPath := fs.String("config", "", "a gateway config file whose traces.db names the store")
	var f traceFilters
	var limit *int
	var after *string
	asJSON := fs.Bool("json", false, "JSON instead of a table (list) or a summary (show)")
	out := new(string)
	if sub != "show" {
		fs.StringVar(&f.model, "model", "", "only this model")
		fs.StringVar(&f.upstream, "upstream", "", "only this upstream")
		fs.StringVar(&f.status, "status", "", "only this status, class (4xx) or range (400-499)")
		fs.StringVar(&f.diagnostics, "diagnostics", "", "true: only requests with diagnostics; false: only those without")
		fs.StringVar(&f.since, "since", "", "only requests started at or after this time (RFC 3339, a date, or a duration before now: 24h, 7d)")
		fs.StringVar(&f.until, "until", "", "only requests started before this time")
		def := trace.DefaultLimit
		if sub == "export" {
			def = 0
		}
		limit = fs.Int("limit", def, "how many (list: a page, at most 1000; export: 0 is all)")
		after = fs.String("after", "", "the cursor a previous page ended with")
	}
	if sub == "export" {
		out = fs.String("o", "", "write to this file instead of stdout")
	}
	fs.Usage = func() { fmt.Fprint(e.stderr, tracesUsage); fs.PrintDefaults() }
	if err := fs.Parse(args[1:]); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	path, err := tracesPath(*db, *configPath, e)
	if err != nil {
		return fail(2, "%v", err)
	}
	store, err := trace.OpenReadOnly(path)
	if err != nil {
		if os.IsNotExist(err) {
			return fail(1, "no trace store at %s (dragoman serve writes it; -db names another)", path)
		}
		return fail(1, "%v", err)
	}
	defer store.Close()

	if sub == "show" {
		if fs.NArg() != 1 {
			return fail(2, "show takes one request id")
		}
		return showTrace(store, fs.Arg(0), *asJSON, e, fail)
	}
	if fs.NArg() != 0 {
		return fail(2, "unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	q, err := f.query(time.Now())
	if err != nil {
		return fail(2, "%v", err)
	}
	q.After = *after
	if sub == "list" {
		if *limit < 1 || *limit > trace.MaxLimit {
			return fail(2, "-limit %d: want 1 to %d", *limit, trace.MaxLimit)
		}
		q.Limit = *limit
		return listTraces(store, q, *asJSON, e, fail)
	}
	if *limit < 0 {
		return fail(2, "-limit %d: want 0 (all) or more", *limit)
	}
	q.Limit = *limit
	w := e.stdout
	if *out != "" {
		file, err := os.Create(*out)
		if err != nil {
			return fail(1, "%v", err)
		}
		defer file.Close()
		w = file
	}
	bw := bufio.NewWriter(w)
	n, err := store.Export(context.Background(), q, bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return fail(1, "export: %v", err)
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "dragoman traces: %d records written to %s\n", n, *out)
	}
	return 0
}

// tracesPath is the store: -db, the config's traces.db, or the default
// file.
func tracesPath(db, configPath string, e *env) (string, error) {
	if db != "" {
		return db, nil
	}
	if configPath != "" {
		c, err := gateway.LoadConfig(configPath)
		if err != nil {
			return "", err
		}
		if c.Traces.DB != "" {
			return c.Traces.DB, nil
		}
	}
	if p := trace.DefaultPath(e.getenv); p != "" {
		return p, nil
	}
	return "", fmt.Errorf("no trace store known: neither $XDG_STATE_HOME nor $HOME is set; give -db FILE")
}

// traceFilters are the filter flags as given.
type traceFilters struct{ model, upstream, status, diagnostics, since, until string }

func (f traceFilters) query(now time.Time) (trace.Query, error) {
	q := trace.Query{Model: f.model, Upstream: f.upstream}
	var err error
	if f.status != "" {
		if q.StatusMin, q.StatusMax, err = trace.ParseStatus(f.status); err != nil {
			return q, err
		}
	}
	if f.diagnostics != "" {
		b, err := strconv.ParseBool(f.diagnostics)
		if err != nil {
			return q, fmt.Errorf("-diagnostics %q: want true or false", f.diagnostics)
		}
		q.HasDiagnostics = &b
	}
	if f.since != "" {
		if q.Since, err = trace.ParseTime(f.since, now); err != nil {
			return q, fmt.Errorf("-since: %v", err)
		}
	}
	if f.until != "" {
		if q.Until, err = trace.ParseTime(f.until, now); err != nil {
			return q, fmt.Errorf("-until: %v", err)
		}
	}
	return q, nil
}

func listTraces(store *trace.DB, q trace.Query, asJSON bool, e *env, fail func(int, string, ...any) int) int {
	p, err := store.List(q)
	if err != nil {
		return fail(1, "%v", err)
	}
	if asJSON {
		if p.Records == nil {
			p.Records = []trace.Summary{}
		}
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return fail(1, "%v", err)
		}
		return 0
	}
	if len(p.Records) == 0 {
		fmt.Fprintln(e.stderr, "dragoman traces: no request matches")
		return 0
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tSTATUS\tMODEL\tUPSTREAM\tMODE\tCALLS\tDIAG\tTOTAL\tERROR")
	for _, r := range p.Records {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", r.ID, r.Start.Local().Format("2006-01-02 15:04:05"), r.Status,
			orDash(r.Model), orDash(r.Upstream), orDash(r.Mode), r.Calls, r.Diagnostics, msText(r.TotalMS), oneLine(r.Error, 60))
	}
	tw.Flush()
	if p.Next != "" {
		fmt.Fprintf(e.stderr, "dragoman traces: more: -after %s\n", p.Next)
	}
	return 0
}

func showTrace(store *trace.DB, id string, asJSON bool, e *env, fail func(int, string, ...any) int) int {
	raw, err := store.Raw(id)
	if err != nil {
		return fail(1, "%v", err)
	}
	if raw == nil {
		return fail(1, "no trace %s in %s", id, store.Where())
	}
	if asJSON {
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "  "); err != nil {
			return fail(1, "trace %s: %v", id, err)
		}
		b.WriteByte('\n')
		e.stdout.Write(b.Bytes())
		return 0
	}
	var r trace.Record
	if err := json.Unmarshal(raw, &r); err != nil {
		return fail(1, "trace %s: %v", id, err)
	}
	w := e.stdout
	line := func(name, v string) {
		if v != "" {
			fmt.Fprintf(w, "%-15s %s\n", name+":", v)
		}
	}
	line("id", r.ID)
	line("started", r.Start.Local().Format(time.RFC3339Nano))
	line("api", r.API)
	model := r.Model
	if r.UpstreamModel != "" && r.UpstreamModel != r.Model {
		model += " (upstream: " + r.UpstreamModel + ")"
	}
	line("model", model)
	line("upstream", strings.TrimSpace(r.Upstream+" "+r.Runtime))
	line("mode", r.Mode)
	line("format", r.Format)
	line("template", r.TemplateOrigin)
	line("constraint", r.Constraint)
	line("status", strconv.Itoa(r.Status))
	line("finish", r.FinishReason)
	line("error", r.Error)
	if r.PromptTokens > 0 || r.CompletionTokens > 0 {
		line("tokens", fmt.Sprintf("%d in, %d out", r.PromptTokens, r.CompletionTokens))
	}
	line("timings", fmt.Sprintf("render %s, first chunk %s, total %s", msText(r.Timings.RenderMS), msText(r.Timings.FirstChunkMS), msText(r.Timings.TotalMS)))
	if m := r.Makeup; m != nil {
		line("make-up", fmt.Sprintf("%d tokens, %d of them the %d tools", m.Total, m.Tools, m.ToolCount))
	}
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s:\n", title)
		for _, it := range items {
			fmt.Fprintf(w, "  - %s\n", it)
		}
	}
	section("decisions", r.Decisions)
	var diags, calls []string
	for _, d := range r.Diagnostics {
		diags = append(diags, fmt.Sprintf("%s at byte %d: %s", d.Code, d.Offset, d.Message))
	}
	section("diagnostics", diags)
	for _, c := range r.Calls {
		calls = append(calls, fmt.Sprintf("%s %s(%s)", c.ID, c.Function.Name, c.Function.Arguments))
	}
	section("calls", calls)
	block := func(title, text string) {
		if text == "" {
			return
		}
		fmt.Fprintf(w, "\n%s:\n%s\n", title, strings.TrimRight(text, "\n"))
	}
	block("prompt", r.Prompt)
	block("completion", r.Completion)
	fmt.Fprintf(w, "\n(the whole record: dragoman traces show -json %s)\n", r.ID)
	return 0
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine is s on one line, cut to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

func msText(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64) + " ms"
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " ms"
}
