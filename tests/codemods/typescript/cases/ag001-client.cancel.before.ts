import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export async function reject(id: string) {
  await client.addToolApprovalResponse({ id, approved: false })
}

export async function answer(id: string, approved: boolean) {
  await client.addToolApprovalResponse({ id, approved })
}
