import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

// A scratch client with no tools in one function...
export function probe() {
  const client = new ChatClient({ connection: fetchServerSentEvents('/api/probe') })
  return client.getInterrupts().length
}

// ...does not make this one, registered with tools, unmigratable.
export function approve(id: string) {
  const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
}
