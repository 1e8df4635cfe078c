import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'

export function Untooled({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat({ connection: fetchServerSentEvents('/api/chat') })
  // TODO(agui): AG001 this client registers no tools: register the approved tool with needsApproval: true (otherwise its interrupt is a generic item with no tool-approval kind), then resolve the bound item with resolveInterrupt(approved) — README#ag001-resolve-approvals-on-the-bound-interrupt
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>Approve</button>
}
