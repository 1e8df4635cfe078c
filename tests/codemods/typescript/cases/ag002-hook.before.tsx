import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Pending() {
  const { pendingInterrupts, messages } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  const summary = { pendingInterrupts, total: messages.length }
  return (
    <ul title={String(summary.total)}>
      {pendingInterrupts.map((item) => (
        <li key={item.id}>{item.kind}</li>
      ))}
    </ul>
  )
}

export function Aliased() {
  const { pendingInterrupts: items } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <span>{items.length}</span>
}

export function Both() {
  const { interrupts, pendingInterrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <span>{interrupts.length + pendingInterrupts.length}</span>
}

export function Member() {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <span>{chat.pendingInterrupts.length}</span>
}
