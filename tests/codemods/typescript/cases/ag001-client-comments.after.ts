import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export async function approve(approval: { id: string }) {
  // the approval's id, not the tool call's
  /* the reviewer clicked yes */
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === approval.id)?.resolveInterrupt(true)
}

export function approveAll() {
  // everything the reviewer saw on the page
  client.resolveInterrupts(true)
}

// Two statements on a line: the TODO goes above that line, not above the function.
export function stored(id: string) {
  // TODO(agui): AG001 its promise is stored: resolveInterrupt returns void, so rewrite this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt
  const note = 'kept'; const pending = client.addToolApprovalResponse({ id, approved: true }); return [note, pending]
}
