import { fetchServerSentEvents, useChat } from '@tanstack/ai-react'
import { tools } from './tools'

export function Reviewer() {
  const { addToolApprovalResponse: respond, isLoading } = useChat({
    connection: fetchServerSentEvents('/api/chat'),
    tools,
  })

  async function decide(id: string, approved: boolean) {
    // The reviewer's decision goes straight to the server.
    await respond({ id, approved })
  }

  return <button disabled={isLoading} onClick={() => decide('approval_1', true)}>Go</button>
}
