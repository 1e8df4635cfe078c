import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveAll() {
  const { addToolApprovalResponse, pendingInterrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const approveAll = async () => {
    for (const item of pendingInterrupts) {
      await addToolApprovalResponse({ id: item.id, approved: true })
    }
  }
  return <button onClick={approveAll}>Approve all ({pendingInterrupts.length})</button>
}

export function DenyAll() {
  const { addToolApprovalResponse: respond, interrupts: queue } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const denyAll = () => {
    queue.forEach(({ id }) => respond({ id, approved: false }))
  }
  return <button onClick={denyAll}>Deny all</button>
}
