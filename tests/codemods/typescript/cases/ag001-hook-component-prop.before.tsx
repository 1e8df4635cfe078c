import { useState } from 'react'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// The button waits for the answer to show that it is busy.
function ApproveButton({ onApprove }: { onApprove: () => Promise<void> }) {
  const [busy, setBusy] = useState(false)
  return (
    <button disabled={busy} onClick={async () => { setBusy(true); await onApprove(); setBusy(false) }}>
      Approve
    </button>
  )
}

export function Parent({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return (
    <div>
      <ApproveButton onApprove={() => addToolApprovalResponse({ id, approved: true })} />
      <button onClick={() => addToolApprovalResponse({ id, approved: false })}>Deny</button>
    </div>
  )
}
