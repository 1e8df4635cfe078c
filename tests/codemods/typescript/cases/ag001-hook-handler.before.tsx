import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApprovalButtons({ approvalId }: { approvalId: string }) {
  const { messages, addToolApprovalResponse } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  return (
    <div>
      <p>{messages.length} messages</p>
      {/* one click, one answer */}
      <button onClick={() => addToolApprovalResponse({ id: approvalId, approved: true })}>Approve</button>
      <button onClick={() => addToolApprovalResponse({ id: approvalId, approved: false })}>Deny</button>
    </div>
  )
}
