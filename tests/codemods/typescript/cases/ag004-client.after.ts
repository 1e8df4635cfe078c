import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import type { ChatResumeState } from '@tanstack/ai-client'
import type { RunAgentResumeItem } from '@tanstack/ai/client'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat') })

export async function recover(entries: RunAgentResumeItem[], state: ChatResumeState) {
  // TODO(agui): AG004 renamed to resumeInterruptsUnsafe: prefer the bound items' resolveInterrupt()/cancel() or resolveInterrupts(...); resumeInterruptsUnsafe is for validated recovery tools only — README#ag004-mark-raw-resume_interrupts-as-unsafe
  const ok = await client.resumeInterruptsUnsafe(entries, state)
  return ok
}
