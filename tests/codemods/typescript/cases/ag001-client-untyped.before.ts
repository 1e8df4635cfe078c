import type { ChatClient } from '@tanstack/ai-client'

// `ChatClient` without its tools: its items never have the tool-approval kind.
export async function approve(client: ChatClient, id: string) {
  await client.addToolApprovalResponse({ id, approved: true })
}
