import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

type Respond = (response: { id: string; approved: boolean }) => Promise<void>

// The child only gets the function: there are no items here to resolve.
function ApproveButton({ id, addToolApprovalResponse }: { id: string; addToolApprovalResponse: Respond }) {
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>Approve</button>
}

export function Parent({ id }: { id: string }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const { addToolApprovalResponse } = chat
  return <ApproveButton id={id} addToolApprovalResponse={addToolApprovalResponse} />
}

export function Sibling({ id }: { id: string }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const { addToolApprovalResponse, messages } = chat
  return <button onClick={() => addToolApprovalResponse({ id, approved: false })}>{messages.length}</button>
}
