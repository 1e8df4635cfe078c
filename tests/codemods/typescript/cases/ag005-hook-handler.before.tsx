import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// "Approve all" and "Deny these" buttons whose handlers walk the items inline.
export function Toolbar({ ids }: { ids: string[] }) {
  const { addToolApprovalResponse, interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  return (
    <div>
      <button onClick={() => interrupts.forEach((item) => addToolApprovalResponse({ id: item.id, approved: true }))}>
        Approve all
      </button>
      <button onClick={() => ids.forEach((id) => addToolApprovalResponse({ id, approved: false }))}>
        Deny these
      </button>
    </div>
  )
}
