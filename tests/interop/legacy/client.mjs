// Client driver on the real @tanstack/ai-client 0.22.1 ChatClient (pre-interrupt
// API). Same script/result format as native/client.mjs; there is no
// getInterrupts(), so the interrupt lists are always [] and only the
// addToolResult / addToolApprovalResponse / sendMessage answer actions apply.
import { ChatClient, fetchServerSentEvents } from '@tanstack/ai-client'

import { clientTools, main } from '../driver_core.mjs'
import { catalog } from './scenarios.mjs'

await main({
  ChatClient,
  fetchServerSentEvents,
  buildTools: (script) => clientTools(catalog, script),
  buildInterrupts: () => undefined,
  hasInterrupts: false,
})
