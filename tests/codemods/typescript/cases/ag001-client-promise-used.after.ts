import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export function approve(id: string): Promise<void> {
  // TODO(agui): AG001 its promise is returned, and callers that await it would no longer wait for the continuation run: resolveInterrupt returns void, so rewrite this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt
  return client.addToolApprovalResponse({ id, approved: true })
}

export async function approveAndLog(id: string, log: (done: Promise<void>) => void) {
  // TODO(agui): AG001 its promise is passed on: resolveInterrupt returns void, so rewrite this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt
  log(client.addToolApprovalResponse({ id, approved: true }))
  // TODO(agui): AG001 the id is computed: store it in a const first, then resolve the bound item with resolveInterrupt(approved) — README#ag001-resolve-approvals-on-the-bound-interrupt
  const pending = client.addToolApprovalResponse({ id: `${id}-2`, approved: true })
  await pending
}
