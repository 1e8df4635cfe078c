// Real @tanstack/ai 0.58.0 chat route with a scripted fake model.
// Usage: node server.mjs <port>   (0 = free port; the bound port is printed on
// stdout as one line). POST /scenario/<name> runs a scenario, GET /health
// answers "ok". AGUI_INTEROP_REQUEST_LOG=<file> appends every received request
// body as one JSON line. Details: tests/interop/README.md.
import { chat, chatParamsFromRequest, toServerSentEventsResponse } from '@tanstack/ai'

import { startServer } from '../server_core.mjs'
import { catalog } from './scenarios.mjs'

startServer({ chat, chatParamsFromRequest, toServerSentEventsResponse, catalog, native: true })
