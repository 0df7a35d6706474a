package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/dragoman-dev/dragoman/backend"
	"github.com/dragoman-dev/dragoman/ondisk"
	"github.com/dragoman-dev/dragoman/tokenize"
	"github.com/dragoman-dev/dragoman/trace"
)

// handleCountTokens serves Anthropic's POST /v1/messages/count_tokens: the
// prompt the model would get for the request — rendered with its own
// template, tools included — counted with its own tokenizer, as the trace's
// prompt_tokens would count it. Agents use it to keep their context in
// budget; an estimate there is worse than no answer, so a model whose
// template or tokenizer is not at hand gets an error saying so.
func (s *Server) handleCountTokens(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
	if err != nil {
		writeAnthropicError(w, http.StatusRequestEntityTooLarge, "request_too_large", err.Error())
		return
	}
	// count_tokens takes a Messages request without max_tokens.
	var probe struct {
		MaxTokens json.RawMessage `json:"max_tokens"`
	}
	if json.Unmarshal(body, &probe) == nil && probe.MaxTokens == nil {
		if i := bytes.IndexByte(body, '{'); i >= 0 {
			body = append(append(append([]byte(nil), body[:i+1]...), `"max_tokens":1,`...), body[i+1:]...)
		}
	}
	req, _, err := decodeAnthropic(body)
	if err != nil {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	routes, err := s.resolve(r.Context(), req.Model)
	var nf *errModelNotFound
	switch {
	case errors.As(err, &nf):
		writeAnthropicError(w, http.StatusNotFound, "not_found_error", err.Error())
		return
	case err != nil:
		writeAnthropicError(w, http.StatusBadGateway, "api_error", err.Error())
		return
	}
	x := &exchange{s: s, client: r.Context(), req: req, rec: &trace.Record{}, rt: routes[0]}
	n, err := x.countPrompt(r.Context())
	var rerr *requestError
	switch {
	case errors.Is(err, errCannotCount):
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error",
			"count_tokens needs the model's chat template and tokenizer, and Dragoman has not found them for "+req.Model+
				" (they are read from the model's GGUF, e.g. in Ollama's store, or counted by llama-server)")
	case errors.As(err, &rerr):
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
	case err != nil:
		writeAnthropicError(w, http.StatusBadGateway, "api_error", s.public(err).Error())
	default:
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": n})
	}
}

// errCannotCount says the model's template or tokenizer is not at hand.
var errCannotCount = errors.New("the model's chat template or tokenizer is not at hand")

// countPrompt renders the prompt the model would get for x's request — with
// its own template, tools included — and counts it with the model's own
// tokenizer, or, where Dragoman has none, has llama-server count it.
// Rendering failures are *requestError; a runtime's failure to count is
// passed on.
func (x *exchange) countPrompt(ctx context.Context) (int, error) {
	rt := x.rt
	_, remote := rt.up.be.(backend.TokenCounter)
	remote = remote && rt.up.be.Kind().Caps().TokenizesExactly
	if rt.state.tpl == nil || (rt.state.tok == nil && !remote) {
		return 0, errCannotCount
	}
	prompt, err := x.render(x.tools())
	if err != nil {
		return 0, err
	}
	return x.countText(ctx, prompt)
}

// countText counts a rendered prompt with the model's tokenizer, or has
// llama-server count it; errCannotCount where neither can.
func (x *exchange) countText(ctx context.Context, prompt string) (int, error) {
	if tok := x.rt.state.tok; tok != nil {
		return tok.Count(prompt), nil
	}
	// No tokenizer at hand: the runtime that will read the prompt counts it.
	if counter, ok := x.rt.up.be.(backend.TokenCounter); ok && x.rt.up.be.Kind().Caps().TokenizesExactly {
		return counter.CountTokens(ctx, prompt)
	}
	return 0, errCannotCount
}

// promptAnnouncer is an answer that tells the client the prompt's length
// before the answer (Anthropic's message_start), and so wants it counted
// where the pipeline has not (relay mode).
type promptAnnouncer interface {
	announcesPromptTokens() bool
}

// announcedPromptTokens is the prompt's length the answer's begin gets: the
// pipeline's count (Ollama's num_ctx, or the runtime's before answering),
// else, for an answer that announces it, the prompt sent counted (own mode)
// or the count count_tokens would give (relay mode); 0 where neither is at
// hand, and the runtime's own figure then comes with the answer's end. In
// relay mode the runtime
// renders the prompt itself: llama-server and vLLM with the same template,
// Ollama with its own Go template, for which the count is the Jinja
// rendering's.
func (x *exchange) announcedPromptTokens(ctx context.Context) int {
	if x.rec.PromptTokens > 0 {
		return x.rec.PromptTokens
	}
	if a, ok := x.out.(promptAnnouncer); !ok || !a.announcesPromptTokens() {
		return 0
	}
	var n int
	var err error
	if x.rec.Mode == "own" && x.rec.Prompt != "" {
		// Own mode without Ollama's num_ctx: the prompt sent is at hand.
		n, err = x.countText(ctx, x.rec.Prompt)
	} else {
		// Counting renders as own mode would: its decisions and diagnostics
		// are not this request's.
		cx := &exchange{s: x.s, client: x.client, req: x.req, rec: &trace.Record{}, rt: x.rt}
		n, err = cx.countPrompt(ctx)
	}
	switch {
	case errors.Is(err, errCannotCount):
		return 0
	case err != nil:
		x.rec.Decide("message_start's input_tokens is 0: the prompt could not be counted (" + x.s.public(err).Error() + "); the runtime's count comes in message_delta")
		return 0
	}
	if x.rec.Mode != "own" {
		x.rec.Decide(fmt.Sprintf("message_start's input_tokens: %d, the request rendered with the model's template and counted as count_tokens counts it; message_delta carries the runtime's own count", n))
	}
	return n
}

// localModelFiles finds, for count_tokens and the make-up, the model's
// files on this machine that its runtime does not name: for LM Studio (a
// local one), its GGUF in LM Studio's models folder (info.GGUFPath, from
// which the template and the tokenizer are then read as from Ollama's
// store); for a template configured from a Hugging Face model folder, the
// tokenizer.json beside it (unless a GGUF gives the tokenizer the runtime
// reads, or the runtime is llama-server, which counts with its own
// vocabulary through /tokenize). configured is the upstream's template path
// for the model, or "".
func localModelFiles(u *upstream, model, configured string, info *backend.ModelInfo, st *modelState) {
	if info.GGUFPath == "" && u.be.Kind().Caps().LMStudioFolder && backend.IsLocal(u.be.BaseURL()) {
		path, why := lmstudioWeights(model, ondisk.Find(ondisk.Stores{LMStudio: lmstudioDirs()}))
		if path != "" {
			info.GGUFPath = path
			why = "the model's GGUF, from LM Studio's models folder: " + path
		}
		if why != "" {
			st.why = append(st.why, why)
		}
	}
	if info.GGUFPath != "" || configured == "" || u.be.Kind().Caps().TokenizesExactly {
		return
	}
	dir := configured
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(configured)
	}
	path := filepath.Join(dir, "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		return
	}
	tok, err := tokenize.FromTokenizerJSON(path)
	if err != nil {
		st.why = append(st.why, "the model folder's tokenizer could not be loaded (no count_tokens or make-up for it): "+err.Error())
		return
	}
	st.tok = tok
	st.why = append(st.why, "tokenizer from "+path)
}

// lmstudioDirs are LM Studio's models folders on this machine.
func lmstudioDirs() []string {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	return ondisk.Default(os.Getenv, home).LMStudio
}

// lmstudioWeights finds the GGUF of the LM Studio model id among the models
// found in LM Studio's folders (named PUBLISHER/FOLDER/FILE.gguf). LM Studio
// names a model by its folder, lower-cased, without "-GGUF"
// ("lmstudio-community/Qwen3-0.6B-GGUF" is "qwen3-0.6b"), with its
// publisher before it where two publishers have one name
// ("unsloth/qwen3-0.6b"), and a variant after "@" ("qwen3-0.6b@q8_0")
// where a folder holds several files. Files of one folder are one model
// (quantizations of one conversion: one template, one vocabulary); a name
// that fits the folders of several publishers is no answer (their templates
// may differ). The second result says why no file was taken, or is "".
func lmstudioWeights(id string, found []ondisk.Model) (string, string) {
	key, variant, _ := strings.Cut(strings.ToLower(id), "@")
	publisher := ""
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		publisher, key = key[:i], key[i+1:]
	}
	var fits []ondisk.Model
	folders := map[string]bool{}
	for _, m := range found {
		parts := strings.Split(strings.ToLower(m.Name), "/")
		if m.Source != "lmstudio" || len(parts) != 3 {
			continue
		}
		folder := strings.TrimSuffix(parts[1], "-gguf")
		if folder != key || (publisher != "" && parts[0] != publisher) || (variant != "" && !strings.Contains(parts[2], variant)) {
			continue
		}
		fits = append(fits, m)
		folders[parts[0]+"/"+parts[1]] = true
	}
	switch {
	case len(fits) == 0:
		return "", ""
	case len(folders) > 1:
		names := make([]string, len(fits))
		for i, m := range fits {
			names[i] = m.Name
		}
		return "", fmt.Sprintf("LM Studio's models folder holds several models %s may be (%s): its template and tokenizer are not read from any (no count_tokens or make-up for it)", id, strings.Join(names, ", "))
	}
	return fits[0].Path, ""
}
