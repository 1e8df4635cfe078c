import { useCallback } from 'react'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveAll() {
  const { resolveInterrupts, interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  const approveAll = useCallback(() => {
    resolveInterrupts(true)
  }, [interrupts, resolveInterrupts])
  return <button onClick={approveAll}>Approve all</button>
}
