import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveSome({ ids }: { ids: string[] }) {
  const { addToolApprovalResponse, interrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const approveListed = async () => {
    for (const id of ids) {
      await addToolApprovalResponse({ id, approved: true })
    }
  }
  const approveFirst = () => {
    interrupts.slice(0, 1).forEach((item) => addToolApprovalResponse({ id: item.id, approved: true }))
  }
  const approveGiven = async (pending: readonly { id: string }[]) => {
    for (const item of pending) {
      await addToolApprovalResponse({ id: item.id, approved: true })
    }
  }
  const denyAll = () => interrupts.forEach((item) => addToolApprovalResponse({ id: item.id, approved: false }))
  return (
    <div>
      <button onClick={denyAll}>Deny all</button>
      <button onClick={approveListed}>Approve listed</button>
      <button onClick={approveFirst}>Approve first</button>
      <button onClick={() => approveGiven(interrupts)}>Approve all ({interrupts.length})</button>
    </div>
  )
}
