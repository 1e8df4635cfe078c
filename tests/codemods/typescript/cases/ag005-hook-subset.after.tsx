import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function ApproveSome({ ids }: { ids: string[] }) {
  const { interrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const approveListed = async () => {
    // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
    for (const id of ids) {
      interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
    }
  }
  const approveFirst = () => {
    // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
    interrupts.slice(0, 1).forEach((item) => interrupts.filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true))
  }
  const approveGiven = async (pending: readonly { id: string }[]) => {
    // TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
    for (const item of pending) {
      interrupts.filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(true)
    }
  }
  // TODO(agui): AG005 this loop's result is used (it is not a statement of its own), so one call cannot replace it: answer the items one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch
  const denyAll = () => interrupts.forEach((item) => interrupts.filter((interrupt) => interrupt.kind === 'tool-approval').find((interrupt) => interrupt.id === item.id)?.resolveInterrupt(false))
  return (
    <div>
      <button onClick={denyAll}>Deny all</button>
      <button onClick={approveListed}>Approve listed</button>
      <button onClick={approveFirst}>Approve first</button>
      <button onClick={() => approveGiven(interrupts)}>Approve all ({interrupts.length})</button>
    </div>
  )
}
