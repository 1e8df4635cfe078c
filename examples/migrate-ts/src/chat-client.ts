// The framework-free part of the app: one ChatClient per conversation, and the
// approval helpers the CLI and the tests call.
import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'

import { tools } from './tools.js'

export function createClient(url: string, threadId: string) {
  return new ChatClient({ threadId, connection: fetchServerSentEvents(url), tools })
}

export type AppClient = ReturnType<typeof createClient>

export function pendingIds(client: AppClient): string[] {
  return client.getPendingInterrupts().map((item) => item.id)
}

export async function approve(client: AppClient, id: string): Promise<void> {
  await client.addToolApprovalResponse({ id, approved: true })
}

export async function reject(client: AppClient, id: string): Promise<void> {
  await client.addToolApprovalResponse({ id, approved: false })
}

// Walks the client's own pending items and answers each: one batch after migration.
export async function approveAll(client: AppClient): Promise<void> {
  for (const item of client.getPendingInterrupts()) {
    await client.addToolApprovalResponse({ id: item.id, approved: true })
  }
}

// Answers only the ids it is given, which may be fewer than are pending: a batch would
// approve the rest too, so migration leaves these answers one by one, with a TODO.
export async function approveListed(client: AppClient, ids: string[]): Promise<void> {
  for (const id of ids) {
    await client.addToolApprovalResponse({ id, approved: true })
  }
}

export function approveThen(client: AppClient, id: string, done: () => void): Promise<void> {
  return client.addToolApprovalResponse({ id, approved: true }).then(done)
}
