import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

type Answer = { id: string; approved: boolean }
const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export async function reject(id: string) {
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(false)
}

export function approve(id: string) {
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
}
