import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Confirm({ id, onDone }: { id: string; onDone: () => void }) {
  const { addToolApprovalResponse, interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  const approve = () => {
    interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
  }
  // TODO(agui): AG001 its promise is chained (.then/.catch/.finally): resolveInterrupt returns void, so rewrite this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt
  const approveThenClose = () => addToolApprovalResponse({ id, approved: true }).then(onDone)
  return (
    <>
      <button onClick={approve}>Approve</button>
      <button onClick={approveThenClose}>Approve and close</button>
    </>
  )
}
