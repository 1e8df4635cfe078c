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
  client.addToolApprovalResponse({ id, approved: true })
}
