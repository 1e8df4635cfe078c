import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Pending() {
  const { interrupts, messages } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  const summary = { pendingInterrupts: interrupts, total: messages.length }
  return (
    <ul title={String(summary.total)}>
      {interrupts.map((item) => (
        <li key={item.id}>{item.kind}</li>
      ))}
    </ul>
  )
}

export function Aliased() {
  const { interrupts: items } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <span>{items.length}</span>
}

export function Both() {
  const { interrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <span>{interrupts.length + interrupts.length}</span>
}

export function Member() {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <span>{chat.interrupts.length}</span>
}
