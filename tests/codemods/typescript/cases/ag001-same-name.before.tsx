import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// Two functions each call theirs `chat`: a useChat result here...
export function Approve({ id }: { id: string }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <button onClick={() => chat.addToolApprovalResponse({ id, approved: true })}>OK</button>
}

// ...and a ChatClient there, which has getInterrupts() and no interrupts property.
export function approveOutside(id: string) {
  const chat = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })
  chat.addToolApprovalResponse({ id, approved: true })
}
