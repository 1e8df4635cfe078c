import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import type { ChatResumeState } from '@tanstack/ai-client'
import type { RunAgentResumeItem } from '@tanstack/ai/client'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat') })

export async function recover(entries: RunAgentResumeItem[], state: ChatResumeState) {
  const ok = await client.resumeInterrupts(entries, state)
  return ok
}
