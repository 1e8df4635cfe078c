import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// Options kept in a const: the one without tools gets generic items only.
const bare = { connection: fetchServerSentEvents('/api/chat') }
const withTools = { connection: fetchServerSentEvents('/api/chat'), tools }

export function NoTools({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat(bare)
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>OK</button>
}

export function WithTools({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat(withTools)
  return <button onClick={() => addToolApprovalResponse({ id, approved: true })}>OK</button>
}
