import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

type Answer = { id: string; approved: boolean }
const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export async function reject(id: string) {
  await client.addToolApprovalResponse({ id, approved: false } satisfies Answer)
}

export function approve(id: string) {
  client.addToolApprovalResponse({ id, approved: true } as Answer)
}
