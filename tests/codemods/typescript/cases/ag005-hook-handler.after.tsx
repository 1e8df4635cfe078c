import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// "Approve all" and "Deny these" buttons whose handlers walk the items inline.
export function Toolbar({ ids }: { ids: string[] }) {
  const { resolveInterrupts, interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })
  return (
    <div>
      <button onClick={() => resolveInterrupts(true)}>
        Approve all
      </button>
      {/* TODO(agui): AG005 this loop does not provably visit every pending approval (only the client's own getInterrupts() / interrupts, unfiltered, does) and resolveInterrupts(true|false) would answer the items it skips: answer the items it visits one by one, or stage each bound item, then submit once — README#ag005-answer-approval-loops-with-one-batch */}
      <button onClick={() => ids.forEach((id) => interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(false))}>
        Deny these
      </button>
    </div>
  )
}
