import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

type Respond = (response: { id: string; approved: boolean }) => Promise<void>

// The child only gets the function: there are no items here to resolve.
function ApproveButton({ id, addToolApprovalResponse }: { id: string; addToolApprovalResponse: Respond }) {
  // TODO(agui): AG001 addToolApprovalResponse does not come from useChat in this file (a prop?): pass the bound items (interrupts) down instead and resolve the item with resolveInterrupt(approved) — README#ag001-resolve-approvals-on-the-bound-interrupt
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>Approve</button>
}

export function Parent({ id }: { id: string }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const { addToolApprovalResponse } = chat
  // TODO(agui): AG001 addToolApprovalResponse is passed on as a function: call the bound item's resolveInterrupt(approved) where it is called — README#ag001-resolve-approvals-on-the-bound-interrupt
  return <ApproveButton id={id} addToolApprovalResponse={addToolApprovalResponse} />
}

export function Sibling({ id }: { id: string }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const { interrupts, messages } = chat
  return <button onClick={() => interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(false)}>{messages.length}</button>
}
