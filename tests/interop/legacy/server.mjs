// Real @tanstack/ai 0.42.0 chat route (the last release emitting the legacy
// CUSTOM approval-requested / tool-input-available events) with a scripted fake
// model. Same command line, routes and request log as native/server.mjs;
// scenarios: tool-approval, client-tool, two-approvals, plain.
import { chat, chatParamsFromRequest, toServerSentEventsResponse } from '@tanstack/ai'

import { startServer } from '../server_core.mjs'
import { catalog } from './scenarios.mjs'

startServer({ chat, chatParamsFromRequest, toServerSentEventsResponse, catalog, native: false })
