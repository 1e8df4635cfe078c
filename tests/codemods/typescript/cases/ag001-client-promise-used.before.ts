import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export function approve(id: string): Promise<void> {
  return client.addToolApprovalResponse({ id, approved: true })
}

export async function approveAndLog(id: string, log: (done: Promise<void>) => void) {
  log(client.addToolApprovalResponse({ id, approved: true }))
  const pending = client.addToolApprovalResponse({ id: `${id}-2`, approved: true })
  await pending
}
