import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export function pendingToolNames(): string[] {
  return client
    .getPendingInterrupts()
    .filter((item) => item.kind === 'tool-approval')
    .map((item) => item.toolName)
}
