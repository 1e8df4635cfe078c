import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveAll() {
  const { resolveInterrupts, interrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const approveAll = async () => {
    resolveInterrupts(true)
  }
  return <button onClick={approveAll}>Approve all ({interrupts.length})</button>
}

export function DenyAll() {
  const { resolveInterrupts, interrupts: queue } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const denyAll = () => {
    resolveInterrupts(false)
  }
  return <button onClick={denyAll}>Deny all</button>
}
