import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })

// These loops walk every pending item but may skip or stop, or answer another item.
export async function approveIf() {
  // TODO(agui): AG005 this loop does more than answer each approval (an if, continue, break, return or another statement), so it may skip items: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of client.getInterrupts()) {
    if (item.kind === 'tool-approval') client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true)
  }
}

export async function approveUnlessAsked() {
  // TODO(agui): AG005 this loop does more than answer each approval (an if, continue, break, return or another statement), so it may skip items: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of client.getInterrupts()) {
    if (item.kind !== 'tool-approval') continue
    client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true)
  }
}

export async function approveOne() {
  // TODO(agui): AG005 this loop does more than answer each approval (an if, continue, break, return or another statement), so it may skip items: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of client.getInterrupts()) {
    client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true)
    break
  }
}

export function denyUntilGeneric() {
  // TODO(agui): AG005 this loop does more than answer each approval (an if, continue, break, return or another statement), so it may skip items: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  client.getInterrupts().forEach((item) => {
    if (item.kind !== 'tool-approval') return
    client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(false)
  })
}

export async function approveSameAgain(id: string) {
  // TODO(agui): AG005 this loop does not answer the item it visits by that item's own id, so it may answer other items than it visits: answer them one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of client.getInterrupts()) {
    client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
  }
}
