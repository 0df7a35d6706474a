// The npm openai client's Responses API: responses.create with a function
// tool, responses.stream, and a turn chained with previous_response_id
// carrying the call's output; prints the results as JSON.
import OpenAI from 'openai'

const client = new OpenAI({ baseURL: process.env.BASE_URL + '/v1', apiKey: 'unused', maxRetries: 0 })
const model = process.env.MODEL
const tools = [{
  type: 'function', name: 'get_weather', description: 'Get the current weather for a city', strict: false,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
}]

const created = await client.responses.create({ model, input: "What's the weather in Paris?", tools, max_output_tokens: 64 })
const stream = client.responses.stream({ model, input: "What's the weather in Paris?", tools, max_output_tokens: 64 })
const types = []
stream.on('event', (e) => types.push(e.type))
const streamed = await stream.finalResponse()
const call = created.output.find((o) => o.type === 'function_call')
const chained = await client.responses.create({
  model, previous_response_id: created.id, tools, max_output_tokens: 64,
  input: [{ type: 'function_call_output', call_id: call.call_id, output: '18C and sunny' }],
})
console.log(JSON.stringify({ created, streamed, types, chained }))
