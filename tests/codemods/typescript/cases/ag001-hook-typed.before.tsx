import type { UseChatReturn } from '@tanstack/ai-react'
import { useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// The useChat result handed down whole: it has interrupts, not getInterrupts().
type Chat = UseChatReturn<typeof tools>

export function ApproveButton(props: { chat: Chat; id: string }) {
  return <button onClick={() => props.chat.addToolApprovalResponse({ id: props.id, approved: true })}>OK</button>
}

export function DenyButton({ chat, id }: { chat: ReturnType<typeof useChat<typeof tools>>; id: string }) {
  return <button onClick={() => chat.addToolApprovalResponse({ id, approved: false })}>No</button>
}

export function approveWith(chat: Chat, id: string) {
  chat.addToolApprovalResponse({ id, approved: true })
}

interface DeskProps {
  session: UseChatReturn<typeof tools>
}

export function Desk({ session }: DeskProps) {
  return <button onClick={() => session?.addToolApprovalResponse({ id: 'a', approved: true })}>A</button>
}
