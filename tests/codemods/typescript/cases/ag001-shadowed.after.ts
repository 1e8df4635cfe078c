import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const log: string[] = []

// The app's own function that happens to share the legacy name: not the client's.
function addToolApprovalResponse(answer: { id: string; approved: boolean }): void {
  log.push(`${answer.id}:${answer.approved}`)
}

export function record(id: string) {
  addToolApprovalResponse({ id, approved: true })
}

export function answer(id: string) {
  const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })
  {
    // A test double shadows the client in this block: its method is its own.
    const client = { addToolApprovalResponse: (a: { id: string; approved: boolean }) => log.push(a.id) }
    client.addToolApprovalResponse({ id, approved: true })
  }
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(false)
}
