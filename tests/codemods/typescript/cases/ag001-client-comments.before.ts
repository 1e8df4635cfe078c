import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export async function approve(approval: { id: string }) {
  await client.addToolApprovalResponse({
    id: approval.id, // the approval's id, not the tool call's
    approved: true /* the reviewer clicked yes */,
  })
}

export function approveAll() {
  for (const item of client.getInterrupts()) {
    // everything the reviewer saw on the page
    client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

// Two statements on a line: the TODO goes above that line, not above the function.
export function stored(id: string) {
  const note = 'kept'; const pending = client.addToolApprovalResponse({ id, approved: true }); return [note, pending]
}
