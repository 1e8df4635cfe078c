// Client driver on the real @tanstack/ai-client 0.33.2 ChatClient with
// fetchServerSentEvents. Usage: node client.mjs <script.json>; prints one JSON
// result on stdout. Script/result format: tests/interop/README.md.
import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'

import { clientTools, main } from '../driver_core.mjs'
import { catalog } from './scenarios.mjs'

const buildTools = (script) => clientTools(catalog, script)

function buildInterrupts(script) {
  if (!script.interrupts) return []
  if (typeof script.interrupts === 'string') {
    const scenario = catalog.scenarios[script.interrupts]
    if (!scenario) throw new Error(`unknown scenario for interrupts: ${JSON.stringify(script.interrupts)}`)
    return scenario.interrupts
  }
  return script.interrupts.map((id) => {
    const def = catalog.interruptDefinitions[id]
    if (!def) throw new Error(`unknown interrupt definition: ${JSON.stringify(id)}`)
    return def
  })
}

await main({ ChatClient, fetchServerSentEvents, buildTools, buildInterrupts, hasInterrupts: true })
