// The npm ollama client's chat with a tool, not streamed and streamed,
// against BASE_URL; prints what came back as JSON for the Go test to check.
import { Ollama } from 'ollama'

const ollama = new Ollama({ host: process.env.BASE_URL })
const model = process.env.MODEL
const tools = [{
  type: 'function',
  function: {
    name: 'get_weather', description: 'Get the current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
}]
const messages = [{ role: 'user', content: "What's the weather in Paris?" }]

const whole = await ollama.chat({ model, messages, tools, stream: false, options: { num_predict: 64 } })
const calls = []
let done = null
for await (const part of await ollama.chat({ model, messages, tools, stream: true, options: { num_predict: 64 } })) {
  calls.push(...(part.message.tool_calls ?? []))
  if (part.done) done = part
}
const list = await ollama.list()
const version = await ollama.version()
console.log(JSON.stringify({ whole, streamedCalls: calls, done, models: list.models.map(m => m.name), version }))
