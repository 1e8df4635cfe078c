import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export async function reject(id: string) {
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.cancel()
}

export async function answer(id: string, approved: boolean) {
  // TODO(agui): AG001 approved is computed and --false-as cancel is set: call resolveInterrupt(true) or cancel() on the bound item by hand — README#ag001-resolve-approvals-on-the-bound-interrupt
  await client.addToolApprovalResponse({ id, approved })
}
