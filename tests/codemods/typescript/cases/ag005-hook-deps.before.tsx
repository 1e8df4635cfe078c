import { useCallback } from 'react'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveAll() {
  const { addToolApprovalResponse, interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  const approveAll = useCallback(() => {
    for (const item of interrupts) {
      addToolApprovalResponse({ id: item.id, approved: true })
    }
  }, [interrupts, addToolApprovalResponse])
  return <button onClick={approveAll}>Approve all</button>
}
