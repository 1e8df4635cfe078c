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
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>Approve</button>
}
