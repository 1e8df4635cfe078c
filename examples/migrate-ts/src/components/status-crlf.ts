// Counts for the status bar. (This file uses Windows line endings.)
import type { AppClient } from '../chat-client.js'

export function waiting(client: AppClient): number {
  return client.getPendingInterrupts().length
}
