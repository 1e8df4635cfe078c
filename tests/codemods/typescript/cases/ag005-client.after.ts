import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

// Each loop walks the client's own pending items, unfiltered, and answers every one.
export async function approveAll() {
  client.resolveInterrupts(true)
}

export function denyAll() {
  client.resolveInterrupts(false)
}

export async function approveEach() {
  client.resolveInterrupts(true)
}

export async function approveSmall(items: { id: string; amount: number }[]) {
  // TODO(agui): AG005 this loop answers each approval with a computed decision: decide per bound item with resolveInterrupts((interrupt) => ...) or stage each item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of items) {
    client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(item.amount < 100)
  }
}
