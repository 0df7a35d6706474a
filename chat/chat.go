// Package chat holds the canonical conversation types every other package
// speaks: one request and response model in the middle, with the OpenAI and
// Anthropic dialects and each runtime's dialect translated at the edges.
package chat

import "encoding/json"

// Tool is a function the model may call, in the OpenAI tools shape.
type Tool struct {
	Type     string       `json:"type"`
	Function ToolFunction `json:"function"`
}

// ToolFunction describes one callable function.
type ToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is a call the model made, in the OpenAI shape: Arguments is a JSON
// object encoded as a string.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
