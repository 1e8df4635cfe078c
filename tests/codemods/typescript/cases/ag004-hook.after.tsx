import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import type { RunAgentResumeItem } from '@tanstack/ai/client'

export function Recovery({ entries }: { entries: RunAgentResumeItem[] }) {
  const { resumeInterruptsUnsafe } = useChat({ connection: fetchServerSentEvents('/api/chat') })
  // TODO(agui): AG004 renamed to resumeInterruptsUnsafe: prefer the bound items' resolveInterrupt()/cancel() or resolveInterrupts(...); resumeInterruptsUnsafe is for validated recovery tools only — README#ag004-mark-raw-resume_interrupts-as-unsafe
  return <button onClick={() => resumeInterruptsUnsafe(entries)}>Recover</button>
}
