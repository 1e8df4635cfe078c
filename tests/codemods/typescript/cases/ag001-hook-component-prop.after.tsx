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
  const { addToolApprovalResponse, interrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return (
    <div>
      {/* TODO(agui): AG001 its promise is the result of a callback passed to a component, which may wait for it (a prop typed () => Promise<void> no longer type-checks): resolveInterrupt returns void, so rewrite this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt */}
      <ApproveButton onApprove={() => addToolApprovalResponse({ id, approved: true })} />
      <button onClick={() => interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(false)}>Deny</button>
    </div>
  )
}
