import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

export const client = new ChatClient({
  connection: fetchServerSentEvents('/api/chat'),
  tools,
})

export async function approve(id: string): Promise<void> {
  await client.addToolApprovalResponse({ id, approved: true });
}

export async function deny(response: { id: string; approved: boolean }): Promise<void> {
  await client.addToolApprovalResponse(response);
}

export function answerLater(approval: { id: string }, approved: boolean): void {
  void client.addToolApprovalResponse({ id: approval.id, approved });
}

export function answerNow(approval: { id: string }): void {
  client.addToolApprovalResponse({ id: approval.id, approved: false }); // a denial, not a cancel
}
