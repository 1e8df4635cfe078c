import { createContext, useContext } from 'react'
import type { ReactNode } from 'react'
import type { UseChatReturn } from '@tanstack/ai-react'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// One chat for the page, shared through a context.
const ChatContext = createContext<UseChatReturn<typeof tools> | null>(null)

export function ChatProvider({ children }: { children: ReactNode }) {
  const chat = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  return <ChatContext.Provider value={chat}>{children}</ChatContext.Provider>
}

export function ApproveButton({ id }: { id: string }) {
  const chat = useContext(ChatContext)
  return <button onClick={() => chat?.interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)}>Approve</button>
}

export function DenyButton({ id }: { id: string }) {
  const chat = useContext(ChatContext)
  return <button onClick={() => chat!.interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(false)}>Deny</button>
}
