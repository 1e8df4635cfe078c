import { toolDefinition } from '@tanstack/ai'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { z } from 'zod'

// Registered, but without needsApproval: its pauses are generic items.
const lookupTool = toolDefinition({
  name: 'lookup',
  description: 'Look something up',
  inputSchema: z.object({ query: z.string() }),
})
const clientTools = [lookupTool.client()]

export function Lookup({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools: clientTools,
  })
  // TODO(agui): AG001 no tool this client registers has needsApproval: true, so its interrupts are generic items with no tool-approval kind: register the approved tool with needsApproval: true, then resolve the bound item with resolveInterrupt(approved) — README#ag001-resolve-approvals-on-the-bound-interrupt
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>Approve</button>
}
