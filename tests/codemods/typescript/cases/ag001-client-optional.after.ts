import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

function create() {
  return new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })
}

// Not connected until the page asks for it.
let client: ReturnType<typeof create> | undefined

export function connect() {
  client = create()
}

export async function approve(id: string) {
  client?.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
}

export function approveAll() {
  client?.resolveInterrupts(true)
}
