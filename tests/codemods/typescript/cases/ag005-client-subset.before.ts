import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })
const other = new ChatClient({ connection: fetchServerSentEvents('/api/other'), tools })

// None of these loops provably visits every pending item of the client it answers.
export async function approveListed(ids: string[]) {
  for (const id of ids) {
    await client.addToolApprovalResponse({ id, approved: true })
  }
}

export async function approveTools() {
  for (const item of client.getPendingInterrupts().filter((i) => i.kind === 'tool-approval')) {
    await client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

export function denyFirst() {
  client.getInterrupts().slice(0, 1).forEach((item) => client.addToolApprovalResponse({ id: item.id, approved: false }))
}

export async function approveCopy() {
  for (const item of [...client.getInterrupts()]) {
    await client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

export async function approveBuilt() {
  const chosen = client.getInterrupts().filter((item) => item.id.endsWith('_1'))
  await Promise.all(chosen.map((item) => client.addToolApprovalResponse({ id: item.id, approved: true })))
}

export async function approveOthers() {
  for (const item of other.getInterrupts()) {
    await client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

export async function approveCounted(ids: string[]) {
  for (let i = 0; i < ids.length; i++) {
    await client.addToolApprovalResponse({ id: ids[i], approved: true })
  }
}
