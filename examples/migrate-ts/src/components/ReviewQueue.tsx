import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'

import { tools } from '../tools.js'

export function ReviewQueue() {
  const { addToolApprovalResponse: respond, pendingInterrupts: queue, isLoading } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })

  async function decide(id: string, approved: boolean) {
    // One decision at a time, straight from the reviewer.
    await respond({ id, approved })
  }

  const approveEverything = () => {
    queue.forEach((item) => respond({ id: item.id, approved: true }))
  }

  return (
    <div aria-busy={isLoading}>
      <button onClick={approveEverything}>Approve all ({queue.length})</button>
      {queue.map((item) => (
        <button key={item.id} onClick={() => decide(item.id, item.kind !== 'unbound')}>
          Decide {item.id}
        </button>
      ))}
    </div>
  )
}
