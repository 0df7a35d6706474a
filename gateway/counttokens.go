package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/dragoman-dev/dragoman/backend"
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
	rt := routes[0]
	counter, remote := rt.up.be.(backend.TokenCounter)
	remote = remote && rt.up.be.Kind() == backend.LlamaServer
	if rt.state.tpl == nil || (rt.state.tok == nil && !remote) {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error",
			"count_tokens needs the model's chat template and tokenizer, and Dragoman has not found them for "+req.Model+
				" (they are read from the model's GGUF, e.g. in Ollama's store, or counted by llama-server)")
		return
	}
	x := &exchange{s: s, client: r.Context(), req: req, rec: &trace.Record{}, rt: rt}
	prompt, err := x.render(x.tools())
	if err != nil {
		writeAnthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	if rt.state.tok != nil {
		writeJSON(w, http.StatusOK, map[string]int{"input_tokens": rt.state.tok.Count(prompt)})
		return
	}
	// No GGUF at hand: the runtime that will read the prompt counts it.
	n, err := counter.CountTokens(r.Context(), prompt)
	if err != nil {
		writeAnthropicError(w, http.StatusBadGateway, "api_error", s.public(err).Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"input_tokens": n})
}
