import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Reviewer() {
  const { interrupts, isLoading } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })

  async function decide(id: string, approved: boolean) {
    // The reviewer's decision goes straight to the server.
    interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(approved)
  }

  return <button disabled={isLoading} onClick={() => decide('approval_1', true)}>Go</button>
}
