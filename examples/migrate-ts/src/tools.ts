// The tools the assistant may call. Both need a human's approval, so the client
// registers them with needsApproval: true: that is what makes their interrupts
// tool-approval items (without it they would arrive as generic ones).
import { toolDefinition } from '@tanstack/ai'
import { z } from 'zod'

export const transferTool = toolDefinition({
  name: 'transfer',
  description: 'Transfer money to a recipient',
  inputSchema: z.object({ amount: z.number(), recipient: z.string() }),
  needsApproval: true,
})

export const deleteFileTool = toolDefinition({
  name: 'delete_file',
  description: 'Delete a file',
  inputSchema: z.object({ path: z.string() }),
  needsApproval: true,
})

export const tools = [transferTool.client(), deleteFileTool.client()]
