import { useCallback, useEffect } from 'react'
import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

// useChat's addToolApprovalResponse never changes, so it was all these callbacks
// depended on; the rewrite reads interrupts, which must then be the dependency.
export function Reviewer({ pendingId }: { pendingId: string }) {
  const { addToolApprovalResponse: respond, interrupts } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })

  const approve = useCallback(
    (id: string) => {
      respond({ id, approved: true })
    },
    [respond],
  )

  useEffect(() => {
    respond({ id: pendingId, approved: false })
  }, [pendingId, respond])

  return <button onClick={() => approve(pendingId)}>{interrupts.length}</button>
}

export function AutoApprove({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  useEffect(() => {
    addToolApprovalResponse({ id, approved: true })
  }, [id, addToolApprovalResponse])
  return null
}

// One call stays (its promise is returned), so the name stays in the dependencies too,
// and interrupts joins them for the call that was rewritten.
export function Mixed({ id }: { id: string }) {
  const { addToolApprovalResponse } = useChat({ connection: fetchServerSentEvents('/api/chat'), tools })
  const both = useCallback(() => {
    addToolApprovalResponse({ id, approved: true })
    return addToolApprovalResponse({ id, approved: false })
  }, [id, addToolApprovalResponse])
  return <button onClick={() => void both()}>Both</button>
}
