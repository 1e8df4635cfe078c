import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

// These loops walk every pending item but may skip or stop, or answer another item.
export async function approveIf() {
  for (const item of client.getInterrupts()) {
    if (item.kind === 'tool-approval') await client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

export async function approveUnlessAsked() {
  for (const item of client.getPendingInterrupts()) {
    if (item.kind !== 'tool-approval') continue
    await client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

export async function approveOne() {
  for (const item of client.getInterrupts()) {
    await client.addToolApprovalResponse({ id: item.id, approved: true })
    break
  }
}

export function denyUntilGeneric() {
  client.getInterrupts().forEach((item) => {
    if (item.kind !== 'tool-approval') return
    client.addToolApprovalResponse({ id: item.id, approved: false })
  })
}

export async function approveSameAgain(id: string) {
  for (const item of client.getInterrupts()) {
    await client.addToolApprovalResponse({ id, approved: true })
  }
}
