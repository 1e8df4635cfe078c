import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'

export function Untooled({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat({ connection: fetchServerSentEvents('/api/chat') })
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>Approve</button>
}
