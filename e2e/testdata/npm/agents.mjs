// The OpenAI Agents SDK (0.3) with its default model, which speaks the
// Responses API: an agent with a get_weather tool, run for two turns. The
// scripted model calls the tool every turn, so the run ends at its turn
// limit after the tool has run and its result went back; prints what
// happened as JSON.
import { Agent, run, tool, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents'
import OpenAI from 'openai'
import { z } from 'zod'

setTracingDisabled(true)
setDefaultOpenAIClient(new OpenAI({ baseURL: process.env.BASE_URL + '/v1', apiKey: 'unused', maxRetries: 0 }))
const cities = []
const getWeather = tool({
  name: 'get_weather', description: 'Get the current weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => { cities.push(city); return '18C and sunny in ' + city },
})
const agent = new Agent({ name: 'forecaster', instructions: 'You forecast the weather.', model: process.env.MODEL,
  tools: [getWeather], modelSettings: { maxTokens: 64 } })
let error = null
let output = null
try {
  output = (await run(agent, "What's the weather in Paris?", { maxTurns: 2 })).finalOutput
} catch (e) {
  error = e.constructor.name
}
console.log(JSON.stringify({ cities, error, output }))
