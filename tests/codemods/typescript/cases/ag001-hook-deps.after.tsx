import { useCallback, useEffect } from 'react'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// useChat's addToolApprovalResponse never changes, so it was all these callbacks
// depended on; the rewrite reads interrupts, which must then be the dependency.
export function Reviewer({ pendingId }: { pendingId: string }) {
  const { interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })

  const approve = useCallback(
    (id: string) => {
      interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
    },
    [interrupts],
  )

  useEffect(() => {
    interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === pendingId)?.resolveInterrupt(false)
  }, [pendingId, interrupts])

  return <button onClick={() => approve(pendingId)}>{interrupts.length}</button>
}

export function AutoApprove({ id }: { id: string }) {
  const { interrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  useEffect(() => {
    interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
  }, [id, interrupts])
  return null
}

// One call stays (its promise is returned), so the name stays in the dependencies too,
// and interrupts joins them for the call that was rewritten.
export function Mixed({ id }: { id: string }) {
  const { addToolApprovalResponse, interrupts } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const both = useCallback(() => {
    interrupts.filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
    // TODO(agui): AG001 its promise is returned, and callers that await it would no longer wait for the continuation run: resolveInterrupt returns void, so rewrite this by hand — README#ag001-resolve-approvals-on-the-bound-interrupt
    return addToolApprovalResponse({ id, approved: false })
  }, [id, addToolApprovalResponse, interrupts])
  return <button onClick={() => void both()}>Both</button>
}
