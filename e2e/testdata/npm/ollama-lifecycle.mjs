// The npm ollama client's load and unload requests, as its README gives
// them, against BASE_URL: a generate with no prompt loads the model, one
// with keep_alive 0 unloads it; a chat's keep_alive 0 unloads the model once
// it has answered. Prints what came back, and /api/ps after each, as JSON.
import { Ollama } from 'ollama'

const ollama = new Ollama({ host: process.env.BASE_URL })
const model = process.env.MODEL

// The unload is the runtime's once the model is idle: ps is read again until
// the model has gone (a bound, not a measure).
async function psUntilGone() {
  for (let i = 0; i < 400; i++) {
    const ps = await ollama.ps()
    if (!ps.models.some(m => m.name === model)) return ps.models
    await new Promise(r => setTimeout(r, 25))
  }
  return (await ollama.ps()).models
}

const load = await ollama.generate({ model, prompt: '', keep_alive: '1h' })
const psLoaded = (await ollama.ps()).models
const unload = await ollama.generate({ model, prompt: '', keep_alive: 0 })
const psUnloaded = await psUntilGone()
const answer = await ollama.chat({ model, messages: [{ role: 'user', content: 'Hi' }], keep_alive: 0, stream: false, options: { num_predict: 4 } })
const psAfterAnswer = await psUntilGone()
const chatLoad = await ollama.chat({ model, messages: [], keep_alive: -1 })
const psForever = (await ollama.ps()).models
console.log(JSON.stringify({ load, psLoaded, unload, psUnloaded, answer, psAfterAnswer, chatLoad, psForever }))
