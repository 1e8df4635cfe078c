import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'

import { tools } from '../tools.js'

export function ApprovalCard({ threadId }: { threadId: string }) {
  const { messages, pendingInterrupts, addToolApprovalResponse } = useChat({
    threadId,
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })

  return (
    <section>
      <p>{messages.length} messages</p>
      {pendingInterrupts.map((item) => (
        <div key={item.id}>
          <span>{item.kind === 'tool-approval' ? item.toolName : 'input needed'}</span>
          <button onClick={() => addToolApprovalResponse({ id: item.id, approved: true })}>
            Approve
          </button>
          <button onClick={() => addToolApprovalResponse({ id: item.id, approved: false })}>
            Deny
          </button>
        </div>
      ))}
    </section>
  )
}
