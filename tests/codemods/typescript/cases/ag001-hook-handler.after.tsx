import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApprovalButtons({ approvalId }: { approvalId: string }) {
  const { messages, interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  return (
    <div>
      <p>{messages.length} messages</p>
      {/* one click, one answer */}
      <button onClick={() => interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === approvalId)?.resolveInterrupt(true)}>Approve</button>
      <button onClick={() => interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === approvalId)?.resolveInterrupt(false)}>Deny</button>
    </div>
  )
}
