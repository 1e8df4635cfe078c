import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import type { ChatInterruptState } from '@tanstack/ai-client'

export const seen: number[] = []

export const client = new ChatClient({
  connection: fetchServerSentEvents('/api/chat'),
  onInterruptStateChange: (state: ChatInterruptState) => {
    seen.push(state.interrupts.length)
  },
})

// Our own object with a field of that name is not the client's alias: left alone.
const local = { pendingInterrupts: 0 }
local.pendingInterrupts = seen.length
export const doubled = local.pendingInterrupts * 2
