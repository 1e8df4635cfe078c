import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Panel({ id }: { id: string }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <button onClick={() => chat.addToolApprovalResponse({ id, approved: true })}>Approve</button>
}
