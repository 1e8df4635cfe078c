import type { ChatClient } from '@tanstack/ai-client'

// `ChatClient` without its tools: its items never have the tool-approval kind.
export async function approve(client: ChatClient, id: string) {
  // TODO(agui): AG001 this client is typed as a bare ChatClient, whose items never have the tool-approval kind: type it with its tools (e.g. ChatClient<typeof tools>) and run agui migrate again — README#ag001-resolve-approvals-on-the-bound-interrupt
  await client.addToolApprovalResponse({ id, approved: true })
}
