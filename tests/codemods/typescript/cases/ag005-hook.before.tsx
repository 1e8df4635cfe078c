import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveAll({ ids }: { ids: string[] }) {
  const { addToolApprovalResponse } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const approveAll = async () => {
    for (const id of ids) {
      await addToolApprovalResponse({ id, approved: true })
    }
  }
  return <button onClick={approveAll}>Approve all</button>
}
