// Saved with a byte order mark: café résumé.
import type { ChatInterruptState } from '@tanstack/ai-client'

export function summary(state: ChatInterruptState): string {
  return `${state.pendingInterrupts.length} waiting`
}
