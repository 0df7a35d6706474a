// The AI SDK (ai 5): its default OpenAI provider, openai(model), speaks the
// Responses API; @ai-sdk/openai-compatible speaks Chat Completions and sends
// a two-part user message. Both with a tool that has no execute, so the
// calls come back; prints them as JSON.
import { generateText, streamText, tool } from 'ai'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { z } from 'zod'

const base = process.env.BASE_URL + '/v1'
const model = process.env.MODEL
const tools = {
  get_weather: tool({ description: 'Get the current weather for a city', inputSchema: z.object({ city: z.string() }) }),
}
const openai = createOpenAI({ baseURL: base, apiKey: 'unused' })
const responses = await generateText({ model: openai(model), prompt: "What's the weather in Paris?", tools, maxOutputTokens: 64 })
const streamed = streamText({ model: openai(model), prompt: "What's the weather in Paris?", tools, maxOutputTokens: 64 })
const streamedCalls = await streamed.toolCalls
const compatible = createOpenAICompatible({ name: 'dragoman', baseURL: base })
const chat = await generateText({
  model: compatible(model), tools, maxOutputTokens: 64,
  messages: [{ role: 'user', content: [{ type: 'text', text: "What's the weather" }, { type: 'text', text: 'in Paris?' }] }],
})
const pick = (calls) => calls.map((c) => ({ name: c.toolName, input: c.input }))
console.log(JSON.stringify({
  responses: { calls: pick(responses.toolCalls), finish: responses.finishReason, id: responses.response.id },
  streamed: { calls: pick(streamedCalls) },
  chat: { calls: pick(chat.toolCalls), finish: chat.finishReason, id: chat.response.id },
}))
