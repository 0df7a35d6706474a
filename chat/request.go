package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Request is one chat request in the canonical model: what the agent asked
// for, whichever API it used. The gateway decodes OpenAI Chat Completions and
// Anthropic Messages into it; backends encode it into each runtime's dialect;
// the template package renders its messages and tools.
type Request struct {
	// Model is the name the client asked for (an alias is resolved by the gateway).
	Model    string
	Messages []Message
	Tools    []Tool
	// ToolChoice says whether and which tool the model must call.
	ToolChoice ToolChoice
	// ParallelToolCalls false allows at most one call; nil leaves it to the model.
	ParallelToolCalls *bool
	// ResponseFormat asks for JSON output; nil means text.
	ResponseFormat *ResponseFormat
	// MaxTokens bounds the generated tokens; 0 means the runtime's default.
	MaxTokens   int
	Temperature *float64
	TopP        *float64
	Seed        *int64
	Stop        []string
	Stream      bool
	// IncludeUsage asks for a final usage chunk when streaming (OpenAI's
	// stream_options.include_usage; Anthropic always reports usage).
	IncludeUsage bool
	// Reasoning is what the client asked of the model's thinking.
	Reasoning Reasoning
	// TemplateKwargs are extra template variables (chat_template_kwargs).
	TemplateKwargs map[string]json.RawMessage
	// KeepAlive is how long the runtime keeps the model loaded after this
	// request (Ollama's keep_alive): nil leaves it to the runtime, 0
	// unloads it once the request is done, a negative value keeps it
	// loaded for ever.
	KeepAlive *time.Duration
}

// Reasoning is the client's request about thinking.
type Reasoning struct {
	// Enabled: nil leaves it to the model's template default; false turns
	// thinking off where the template can (enable_thinking=false), true on.
	Enabled *bool
	// Effort is OpenAI's reasoning_effort (low, medium, high), passed to
	// templates that read it (gpt-oss).
	Effort string
	// BudgetTokens is Anthropic's thinking.budget_tokens; 0 when unset.
	BudgetTokens int
}

// ToolChoiceMode is how the model may use the tools.
type ToolChoiceMode string

const (
	// ToolAuto lets the model choose between text and calls (the default).
	ToolAuto ToolChoiceMode = "auto"
	// ToolNone forbids calls.
	ToolNone ToolChoiceMode = "none"
	// ToolRequired requires at least one call.
	ToolRequired ToolChoiceMode = "required"
	// ToolNamed requires a call of the function Name.
	ToolNamed ToolChoiceMode = "function"
)

// ToolChoice is the request's tool_choice.
type ToolChoice struct {
	Mode ToolChoiceMode // "" means auto
	Name string         // with ToolNamed
}

// ResponseFormat is OpenAI's response_format.
type ResponseFormat struct {
	// Type is "json_object" or "json_schema" ("text" is represented by nil).
	Type   string
	Name   string
	Schema json.RawMessage
	Strict bool
}

// Role names who speaks a message.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
	// RoleDeveloper is OpenAI's name for system instructions of newer
	// models; templates without a branch for it get it as system.
	RoleDeveloper = "developer"
)

// Message is one turn, in the shape chat templates read: the OpenAI message
// with reasoning_content beside content.
type Message struct {
	Role string
	// Content is the text; Parts, when not nil, is the content as a list of
	// parts instead (text and images), which some templates iterate.
	Content string
	Parts   []Part
	// Reasoning is the thinking of an assistant turn (reasoning_content).
	Reasoning  string
	ToolCalls  []ToolCall
	ToolCallID string // of a tool result: the call it answers
	Name       string // of a tool result: the tool's name, where known
	// IsError marks a tool result that reports the tool's failure
	// (Anthropic's is_error). Chat templates and the runtimes' chat APIs
	// have no field for it, so Content says it too: the client's text after
	// "Error: " (see docs/GATEWAY.md).
	IsError bool
}

// Part is one element of a message's content list.
type Part struct {
	Type     string // "text" or "image_url"
	Text     string
	ImageURL string
}

// messageJSON is Message's wire form (OpenAI's, plus reasoning_content).
type messageJSON struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Reasoning  string          `json:"reasoning_content,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	Name       string          `json:"name,omitempty"`
}

type partJSON struct {
	Type     string        `json:"type"`
	Text     string        `json:"text,omitempty"`
	ImageURL *imageURLJSON `json:"image_url,omitempty"`
}

type imageURLJSON struct {
	URL string `json:"url"`
}

// MarshalJSON writes the OpenAI shape. An assistant turn with calls and no
// text has "content": null, as OpenAI clients send it.
func (m Message) MarshalJSON() ([]byte, error) {
	w := messageJSON{Role: m.Role, Reasoning: m.Reasoning, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID, Name: m.Name}
	var err error
	switch {
	case m.Parts != nil:
		parts := make([]partJSON, len(m.Parts))
		for i, p := range m.Parts {
			parts[i] = partJSON{Type: p.Type, Text: p.Text}
			if p.Type == "image_url" {
				parts[i].ImageURL = &imageURLJSON{URL: p.ImageURL}
			}
		}
		w.Content, err = json.Marshal(parts)
	case m.Content == "" && len(m.ToolCalls) > 0:
		w.Content = json.RawMessage("null")
	default:
		w.Content, err = json.Marshal(m.Content)
	}
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the OpenAI shape: content as a string, null, or a list
// of parts; "reasoning" and "thinking" are read as reasoning_content too.
func (m *Message) UnmarshalJSON(data []byte) error {
	var w struct {
		messageJSON
		ReasoningAlt string `json:"reasoning"`
		Thinking     string `json:"thinking"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = Message{Role: w.Role, Reasoning: w.Reasoning, ToolCalls: w.ToolCalls, ToolCallID: w.ToolCallID, Name: w.Name}
	if m.Reasoning == "" {
		m.Reasoning = w.ReasoningAlt
	}
	if m.Reasoning == "" {
		m.Reasoning = w.Thinking
	}
	content := bytes.TrimSpace(w.Content)
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		return json.Unmarshal(content, &m.Content)
	case content[0] == '[':
		var parts []partJSON
		if err := json.Unmarshal(content, &parts); err != nil {
			return fmt.Errorf("message content: %w", err)
		}
		m.Parts = make([]Part, len(parts))
		for i, p := range parts {
			m.Parts[i] = Part{Type: p.Type, Text: p.Text}
			if p.ImageURL != nil {
				m.Parts[i].ImageURL = p.ImageURL.URL
			}
		}
	default:
		return errors.New("message content must be a string, null or a list of parts")
	}
	return nil
}

// Text is the message's text: Content, or its text parts joined with
// newlines, as vLLM and llama.cpp join them for templates that read a string.
func (m Message) Text() string {
	if m.Parts == nil {
		return m.Content
	}
	var b []byte
	for _, p := range m.Parts {
		if p.Type == "text" {
			if len(b) > 0 {
				b = append(b, '\n')
			}
			b = append(b, p.Text...)
		}
	}
	return string(b)
}

// FinishReason says why generation ended, in OpenAI's words.
type FinishReason string

const (
	FinishStop      FinishReason = "stop"
	FinishLength    FinishReason = "length"
	FinishToolCalls FinishReason = "tool_calls"
)

// Usage counts tokens.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens of the prompt the runtime kept from an earlier request
	// instead of evaluating them again (part of PromptTokens).
	CachedTokens int `json:"cached_tokens,omitempty"`
}
