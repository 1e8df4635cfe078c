import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import type { RunAgentResumeItem } from '@tanstack/ai/client'

export function Recovery({ entries }: { entries: RunAgentResumeItem[] }) {
  const { resumeInterrupts } = useChat({ connection: fetchServerSentEvents('/api/chat') })
  return <button onClick={() => resumeInterrupts(entries)}>Recover</button>
}
