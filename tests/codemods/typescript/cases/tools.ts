// Shared by the before/after pairs: one tool registered for approval, one not.
import { toolDefinition } from '@tanstack/ai'
import { z } from 'zod'

export const transferTool = toolDefinition({
  name: 'transfer',
  description: 'Send money to someone',
  inputSchema: z.object({ amount: z.number(), recipient: z.string() }),
  needsApproval: true,
})

export const tools = [transferTool.client()]
