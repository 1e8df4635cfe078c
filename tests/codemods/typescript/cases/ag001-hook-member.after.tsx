import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Panel({ id }: { id: string }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <button onClick={() => chat.interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)}>Approve</button>
}
