import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveAll({ ids }: { ids: string[] }) {
  const { resolveInterrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const approveAll = async () => {
    resolveInterrupts(true)
  }
  return <button onClick={approveAll}>Approve all</button>
}
