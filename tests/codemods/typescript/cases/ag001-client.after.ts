import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

export const client = new ChatClient({
  connection: fetchServerSentEvents('/api/chat'),
  tools,
})

export async function approve(id: string): Promise<void> {
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true);
}

export async function deny(response: { id: string; approved: boolean }): Promise<void> {
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === response.id)?.resolveInterrupt(response.approved);
}

export function answerLater(approval: { id: string }, approved: boolean): void {
  void client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === approval.id)?.resolveInterrupt(approved);
}

export function answerNow(approval: { id: string }): void {
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === approval.id)?.resolveInterrupt(false); // a denial, not a cancel
}
