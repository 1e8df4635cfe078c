import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'
import { tools } from './tools'

const client = new ChatClient({ connection: fetchServerSentEvents('/api/chat'), tools })
const other = new ChatClient({ connection: fetchServerSentEvents('/api/other'), tools })

// None of these loops provably visits every pending item of the client it answers.
export async function approveListed(ids: string[]) {
  // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const id of ids) {
    client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
  }
}

export async function approveTools() {
  // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of client.getInterrupts().filter((i) => i.kind === 'tool-approval')) {
    client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true)
  }
}

export function denyFirst() {
  // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  client.getInterrupts().slice(0, 1).forEach((item) => client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(false))
}

export async function approveCopy() {
  // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of [...client.getInterrupts()]) {
    client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true)
  }
}

export async function approveBuilt() {
  const chosen = client.getInterrupts().filter((item) => item.id.endsWith('_1'))
  // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  // TODO(agui): AG001 its promise is the callback's result: resolveInterrupt returns void, so rewrite this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt
  await Promise.all(chosen.map((item) => client.addToolApprovalResponse({ id: item.id, approved: true })))
}

export async function approveOthers() {
  // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (const item of other.getInterrupts()) {
    client.getInterrupts().filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true)
  }
}

export async function approveCounted(ids: string[]) {
  // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  for (let i = 0; i < ids.length; i++) {
    client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === ids[i])?.resolveInterrupt(true)
  }
}
