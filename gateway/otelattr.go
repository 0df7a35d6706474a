package gateway

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// Every name Dragoman puts on an OpenTelemetry span, in one place
// (docs/OBSERVABILITY.md lists them with what each holds).
//
// The gen_ai.*, http.*, error.type and service.* names follow the
// OpenTelemetry semantic conventions v1.41.0: for gen_ai.* the GenAI
// conventions as that release has them, the latest experimental ones
// (what OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental asks
// instrumentations for: Dragoman never emitted an older version, so it has
// no other to fall back to), and the last release of the conventions' main
// repository that holds them. The keys are the Go SDK's own constants
// (go.opentelemetry.io/otel/semconv/v1.41.0), so a name cannot drift from
// the release; the tracer carries its schema URL.
//
// The dragoman.* names are Dragoman's own: what no convention has a name
// for (the mode, the template, the call constraint, the parse outcomes, the
// runtime's timings, the decisions and diagnostics of the trace record).
// A change to one of them is a change to docs/OBSERVABILITY.md.
const otelSchemaURL = semconv.SchemaURL

// The GenAI semantic conventions (v1.41.0).
const (
	attrOperation       = semconv.GenAIOperationNameKey         // chat (the gateway), text_completion or chat (the runtime)
	attrProvider        = semconv.GenAIProviderNameKey          // the runtime (otelProvider)
	attrRequestModel    = semconv.GenAIRequestModelKey          // the model asked for
	attrResponseModel   = semconv.GenAIResponseModelKey         // the runtime's model that answered
	attrResponseID      = semconv.GenAIResponseIDKey            // the answer's id (the trace's)
	attrFinishReasons   = semconv.GenAIResponseFinishReasonsKey // [stop], [length], [tool_calls], [error]
	attrInputTokens     = semconv.GenAIUsageInputTokensKey      // the prompt, cached tokens included
	attrOutputTokens    = semconv.GenAIUsageOutputTokensKey     // the completion
	attrCachedTokens    = semconv.GenAIUsageCacheReadInputTokensKey
	attrMaxTokens       = semconv.GenAIRequestMaxTokensKey
	attrTemperature     = semconv.GenAIRequestTemperatureKey
	attrTopP            = semconv.GenAIRequestTopPKey
	attrSeed            = semconv.GenAIRequestSeedKey
	attrStopSequences   = semconv.GenAIRequestStopSequencesKey
	attrStream          = semconv.GenAIRequestStreamKey            // set only when the request streams
	attrFirstChunk      = semconv.GenAIResponseTimeToFirstChunkKey // seconds
	attrOutputType      = semconv.GenAIOutputTypeKey               // json, when a response_format asks for it
	attrInputMessages   = semconv.GenAIInputMessagesKey            // opt-in content
	attrOutputMessages  = semconv.GenAIOutputMessagesKey           // opt-in content
	attrToolDefinitions = semconv.GenAIToolDefinitionsKey          // opt-in content
	attrToolName        = semconv.GenAIToolNameKey                 // on a dragoman.call event
	attrToolCallID      = semconv.GenAIToolCallIDKey               // on a dragoman.call event
	attrToolCallArgs    = semconv.GenAIToolCallArgumentsKey        // on a dragoman.call event, opt-in content
)

// The GenAI operations and the values of their parts (the conventions'
// input and output message schemas).
const (
	opChat           = "chat"
	opTextCompletion = "text_completion"
	finishError      = "error" // gen_ai.response.finish_reasons of an answer that broke off
)

// HTTP, errors and the resource (semantic conventions v1.41.0).
const (
	attrHTTPMethod     = semconv.HTTPRequestMethodKey
	attrHTTPRoute      = semconv.HTTPRouteKey
	attrHTTPStatus     = semconv.HTTPResponseStatusCodeKey
	attrErrorType      = semconv.ErrorTypeKey
	attrServiceName    = semconv.ServiceNameKey
	attrServiceVersion = semconv.ServiceVersionKey
)

// The spans' names: the request's is "chat {model}" and the runtime's
// "{operation} {model}", as the conventions name inference spans; the
// steps between are Dragoman's.
const (
	spanRender    = "dragoman.render"
	spanConstrain = "dragoman.constrain"
	spanParse     = "dragoman.parse"
)

// Dragoman's attributes.
const (
	attrRequestID      = attribute.Key("dragoman.request.id") // the id of /dragoman/requests/{id}
	attrAPI            = attribute.Key("dragoman.api")        // the client's API: openai, anthropic, responses, ollama
	attrUpstream       = attribute.Key("dragoman.upstream")   // the upstream's name
	attrRuntime        = attribute.Key("dragoman.runtime")    // its kind: ollama, llama-server, embedded, vllm, …
	attrMode           = attribute.Key("dragoman.mode")       // own or relay
	attrFormat         = attribute.Key("dragoman.format")     // the tool-call format's family id
	attrTemplateOrigin = attribute.Key("dragoman.template.origin")
	attrConstraint     = attribute.Key("dragoman.constraint") // grammar, lazy-grammar, structural-tag, json-schema
	attrCalls          = attribute.Key("dragoman.calls")      // calls handed to the client
	attrCallsAsText    = attribute.Key("dragoman.calls.left_as_text")
	attrCallsRepaired  = attribute.Key("dragoman.calls.repaired") // relay: calls parsed out of the runtime's text
	attrDiagnostics    = attribute.Key("dragoman.diagnostics")    // how many
	attrTruncated      = attribute.Key("dragoman.truncated")      // the output limit cut the answer (finish length)
	attrError          = attribute.Key("dragoman.error")          // what went wrong, in the trace's words
	attrToolCount      = attribute.Key("dragoman.request.tools")
	attrMessageCount   = attribute.Key("dragoman.request.messages")
	attrToolChoice     = attribute.Key("dragoman.request.tool_choice")

	// The steps' own.
	attrRenderMS     = attribute.Key("dragoman.render_ms")
	attrPromptTokens = attribute.Key("dragoman.prompt.tokens")
	attrPrompt       = attribute.Key("dragoman.prompt")     // the rendered prompt, opt-in content
	attrCompletion   = attribute.Key("dragoman.completion") // the raw completion, opt-in content

	// The runtime's own account of the request (trace.Timings).
	attrUpPromptMS     = attribute.Key("dragoman.upstream.prompt_ms")
	attrUpPromptRate   = attribute.Key("dragoman.upstream.prompt_tokens_per_s")
	attrUpGenerateMS   = attribute.Key("dragoman.upstream.generate_ms")
	attrUpGenerateRate = attribute.Key("dragoman.upstream.generate_tokens_per_s")
	attrUpCached       = attribute.Key("dragoman.upstream.cached_tokens")
	attrUpSlot         = attribute.Key("dragoman.upstream.slot")

	// The events' attributes.
	attrDecision   = attribute.Key("dragoman.decision")
	attrAction     = attribute.Key("dragoman.action")
	attrDiagCode   = attribute.Key("dragoman.diagnostic.code")
	attrDiagMsg    = attribute.Key("dragoman.diagnostic.message")
	attrDiagOffset = attribute.Key("dragoman.diagnostic.offset")

	attrMakeupTotal    = attribute.Key("dragoman.makeup.total_tokens")
	attrMakeupTools    = attribute.Key("dragoman.makeup.tools_tokens")
	attrMakeupToolN    = attribute.Key("dragoman.makeup.tool_count")
	attrMakeupShare    = attribute.Key("dragoman.makeup.tools_share") // 0 to 1
	attrMakeupSystem   = attribute.Key("dragoman.makeup.system_tokens")
	attrMakeupMessages = attribute.Key("dragoman.makeup.messages_tokens")
	attrMakeupTemplate = attribute.Key("dragoman.makeup.template_tokens")
	attrMakeupPrefill  = attribute.Key("dragoman.makeup.prefill_estimate_ms")
)

// The events, on the request's span (the make-up's on the render's).
const (
	eventDecision   = "dragoman.decision"
	eventAction     = "dragoman.action"
	eventDiagnostic = "dragoman.diagnostic"
	eventCall       = "dragoman.call"
	eventMakeup     = "dragoman.makeup"
)
