import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// Options kept in a const: the one without tools gets generic items only.
const bare = { connection: fetchServerSentEvents('/api/chat') }
const withTools = { connection: fetchServerSentEvents('/api/chat'), tools }

export function NoTools({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat(bare)
  // TODO(agui): AG001 this client registers no tools: register the approved tool with needsApproval: true (otherwise its interrupt is a generic item with no tool-approval kind), then resolve the bound item with resolveInterrupt(approved) — README#ag001-resolve-approvals-on-the-bound-interrupt
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>OK</button>
}

export function WithTools({ id }: { id: string }) {
  const { interrupts } = useChat(withTools)
  return <button onClick={() => interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)}>OK</button>
}
