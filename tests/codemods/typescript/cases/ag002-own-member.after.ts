import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

// The app's own store keeps its copy under the deprecated name.
export interface ApprovalState {
  pendingInterrupts: string[]
  busy: boolean
}

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

export function count(state: ApprovalState): number {
  // TODO(agui): AG002 this file declares its own pendingInterrupts member, so this read may be yours: if it reads a useChat result or a ChatClient state, read interrupts instead — README#ag002-read-interrupts-instead-of-pending_interrupts
  return state.pendingInterrupts.length
}

export function sync(state: ApprovalState): ApprovalState {
  return { ...state, pendingInterrupts: client.getInterruptState().interrupts.map((item) => item.id) }
}

export function waiting(): number {
  return client.getInterruptState().interrupts.length
}
