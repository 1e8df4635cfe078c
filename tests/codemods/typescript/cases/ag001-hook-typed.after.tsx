import type { UseChatReturn } from '@tanstack/ai-react'
import { useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// The useChat result handed down whole: it has interrupts, not getInterrupts().
type Chat = UseChatReturn<typeof tools>

export function ApproveButton(props: { chat: Chat; id: string }) {
  return <button onClick={() => props.chat.interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === props.id)?.resolveInterrupt(true)}>OK</button>
}

export function DenyButton({ chat, id }: { chat: ReturnType<typeof useChat<typeof tools>>; id: string }) {
  return <button onClick={() => chat.interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(false)}>No</button>
}

export function approveWith(chat: Chat, id: string) {
  chat.interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
}

interface DeskProps {
  session: UseChatReturn<typeof tools>
}

export function Desk({ session }: DeskProps) {
  return <button onClick={() => session?.interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === 'a')?.resolveInterrupt(true)}>A</button>
}
