import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

// Each loop walks the client's own pending items, unfiltered, and answers every one.
export async function approveAll() {
  for (const item of client.getPendingInterrupts()) {
    await client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

export function denyAll() {
  client.getInterrupts().forEach(({ id }) => client.addToolApprovalResponse({ id, approved: false }))
}

export async function approveEach() {
  await Promise.all(client.getPendingInterrupts().map((item) => client.addToolApprovalResponse({ id: item.id, approved: true })))
}

export async function approveSmall(items: { id: string; amount: number }[]) {
  for (const item of items) {
    await client.addToolApprovalResponse({ id: item.id, approved: item.amount < 100 })
  }
}
