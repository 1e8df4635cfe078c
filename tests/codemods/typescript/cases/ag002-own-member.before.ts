import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

// The app's own store keeps its copy under the deprecated name.
export interface ApprovalState {
  pendingInterrupts: string[]
  busy: boolean
}

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export function count(state: ApprovalState): number {
  return state.pendingInterrupts.length
}

export function sync(state: ApprovalState): ApprovalState {
  return { ...state, pendingInterrupts: client.getInterruptState().pendingInterrupts.map((item) => item.id) }
}

export function waiting(): number {
  return client.getInterruptState().pendingInterrupts.length
}
