import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export async function approveAll(ids: string[]) {
  for (const id of ids) {
    await client.addToolApprovalResponse({ id, approved: true })
  }
}

export function denyAll(ids: string[]) {
  ids.forEach((id) => client.addToolApprovalResponse({ id, approved: false }))
}

export async function approveEach(ids: string[]) {
  await Promise.all(ids.map((id) => client.addToolApprovalResponse({ id, approved: true })))
}

export async function approveSmall(items: { id: string; amount: number }[]) {
  for (const item of items) {
    await client.addToolApprovalResponse({ id: item.id, approved: item.amount < 100 })
  }
}
