import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Confirm({ id, onDone }: { id: string; onDone: () => void }) {
  const { addToolApprovalResponse } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  const approve = () => {
    addToolApprovalResponse({ id, approved: true })
  }
  const approveThenClose = () => addToolApprovalResponse({ id, approved: true }).then(onDone)
  return (
    <>
      <button onClick={approve}>Approve</button>
      <button onClick={approveThenClose}>Approve and close</button>
    </>
  )
}
