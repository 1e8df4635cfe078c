import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import type { RunAgentResumeItem } from '@tanstack/ai/client'

export function Recovery({ saved }: { saved: RunAgentResumeItem[] }) {
  const { resumeInterrupts } = useChat({ connection: fetchServerSentEvents('/api/chat') })
  return <button onClick={() => resumeInterrupts(saved)}>Resume saved answers</button>
}
