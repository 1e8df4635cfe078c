// Chat-route core shared by native/server.mjs (@tanstack/ai 0.58.0) and
// legacy/server.mjs (@tanstack/ai 0.42.0): plain node:http on 127.0.0.1, the
// documented route (chatParamsFromRequest -> chat -> toServerSentEventsResponse)
// and a scripted fake text adapter. It imports no package itself; each project
// injects its own @tanstack/ai functions and scenario catalogue.
import { appendFileSync } from 'node:fs'
import { createServer } from 'node:http'

import { MODEL, SCRIPTED_INTERRUPTS_KEY, SCRIPTED_TURNS_KEY } from './scenario_catalog.mjs'

/** The scripted text adapter: plays one fixed turn per model call. */
function scriptedAdapter(scenario) {
  return {
    kind: 'text',
    name: 'scripted',
    model: MODEL,
    async *chatStream(options) {
      const assistantTurns = options.messages.filter((m) => m.role === 'assistant').length
      const turnIndex = Math.min(assistantTurns, scenario.turns.length - 1)
      const turn = scenario.turns[turnIndex]
      const messageId = `msg_scripted_${turnIndex}`
      const runId = options.runId
      const threadId = options.threadId
      const now = () => Date.now()
      yield { type: 'RUN_STARTED', runId, threadId, model: MODEL, timestamp: now() }
      const toolCalls = turn.toolCalls ?? []
      // Text between calls (`textBefore` on a call): the turn's one message stays open
      // across its tool calls and ends after the last one, as a provider streams
      // interleaved text and tool-use blocks. Otherwise text, then the calls.
      const interleaved = toolCalls.some((call) => call.textBefore)
      const hasText = (turn.text && turn.text.length > 0) || interleaved
      if (hasText) {
        yield { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant', model: MODEL, timestamp: now() }
        for (const delta of turn.text ?? []) {
          yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta, model: MODEL, timestamp: now() }
        }
        if (!interleaved) yield { type: 'TEXT_MESSAGE_END', messageId, model: MODEL, timestamp: now() }
      }
      for (const [index, call] of toolCalls.entries()) {
        for (const delta of call.textBefore ?? []) {
          yield { type: 'TEXT_MESSAGE_CONTENT', messageId, delta, model: MODEL, timestamp: now() }
        }
        // `argsText` is the model's raw argument text (numbers as it wrote them),
        // streamed in `argsChunks` pieces when given; else the compact JSON of `args`.
        const args = call.argsText ?? JSON.stringify(call.args)
        const pieces = call.argsChunks ?? [args]
        yield {
          type: 'TOOL_CALL_START',
          toolCallId: call.id,
          toolCallName: call.name,
          toolName: call.name,
          parentMessageId: messageId,
          index,
          model: MODEL,
          timestamp: now(),
        }
        for (const delta of pieces) {
          yield { type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta, model: MODEL, timestamp: now() }
        }
        yield {
          type: 'TOOL_CALL_END',
          toolCallId: call.id,
          toolCallName: call.name,
          toolName: call.name,
          input: call.argsText === undefined ? call.args : JSON.parse(call.argsText),
          model: MODEL,
          timestamp: now(),
        }
      }
      if (interleaved) yield { type: 'TEXT_MESSAGE_END', messageId, model: MODEL, timestamp: now() }
      yield {
        type: 'RUN_FINISHED',
        runId,
        threadId,
        model: MODEL,
        timestamp: now(),
        finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
      }
    },
    async structuredOutput() {
      throw new Error('the scripted adapter does not support structured output')
    },
  }
}

/** Server tools: definitions with an executor become server tools; the rest stay client tools. */
function serverTools(scenario, serverExecutors) {
  return scenario.tools.map((def) => {
    const execute = serverExecutors[def.name]
    return execute ? def.server(execute) : def
  })
}

/** Generic middleware: emit the scenario's requests at its phase, stop on a rejected plan. */
function scenarioMiddleware(scenario, reviewPlan) {
  if (!scenario.generic) return []
  const { phase, requests } = scenario.generic
  return [
    {
      name: 'scenario-generic-interrupts',
      onInterruptBoundary(ctx) {
        if (ctx.phase !== phase) return
        if (ctx.parentRunId) return
        return { interrupts: requests() }
      },
      onInterruptResolution(_ctx, resumed) {
        for (const result of resumed.for(reviewPlan)) {
          if (result.status === 'resolved' && !result.response.approved) {
            return { toolResume: 'stop' }
          }
        }
        return undefined
      },
    },
  ]
}

async function readBody(req) {
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  return Buffer.concat(chunks)
}

function logRequest(bodyText) {
  const file = process.env.AGUI_INTEROP_REQUEST_LOG
  if (!file) return
  let line
  try {
    line = JSON.stringify(JSON.parse(bodyText))
  } catch {
    line = JSON.stringify(bodyText)
  }
  appendFileSync(file, line + '\n')
}

async function sendResponse(res, response) {
  const headers = {}
  response.headers.forEach((value, key) => {
    headers[key] = value
  })
  res.writeHead(response.status, headers)
  if (response.body) {
    const reader = response.body.getReader()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      res.write(value)
    }
  }
  res.end()
}

/**
 * The turns a `turnsFromRequest` scenario plays: `forwardedProps[SCRIPTED_TURNS_KEY]`
 * of the body, a non-empty list of `{text?, toolCalls?}` (a call: `{id, name, args}`,
 * or `argsText` / `argsChunks` for raw argument text, `textBefore` for text before it).
 * Returns an error message instead when the body has none.
 */
function scriptedTurns(body) {
  let parsed
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return 'the body is not JSON'
  }
  const turns = parsed?.forwardedProps?.[SCRIPTED_TURNS_KEY]
  if (!Array.isArray(turns) || turns.length === 0) {
    return `forwardedProps.${SCRIPTED_TURNS_KEY} must be a non-empty list of turns`
  }
  return turns
}

async function handleScenario(lib, name, req, res) {
  const { chat, chatParamsFromRequest, toServerSentEventsResponse, catalog } = lib
  let scenario = catalog.scenarios[name]
  const body = await readBody(req)
  logRequest(body.toString('utf8'))
  if (!scenario) {
    res.writeHead(404, { 'content-type': 'text/plain' })
    res.end(`unknown scenario: ${name}\n`)
    return
  }
  if (scenario.turnsFromRequest) {
    const turns = scriptedTurns(body)
    if (typeof turns === 'string') {
      res.writeHead(400, { 'content-type': 'text/plain' })
      res.end(`${name}: ${turns}\n`)
      return
    }
    scenario = { ...scenario, turns }
    const generic = JSON.parse(body.toString('utf8')).forwardedProps?.[SCRIPTED_INTERRUPTS_KEY]
    if (generic !== undefined && catalog.scriptedGeneric) {
      const built = catalog.scriptedGeneric(generic)
      if (typeof built === 'string') {
        res.writeHead(400, { 'content-type': 'text/plain' })
        res.end(`${name}: ${built}\n`)
        return
      }
      scenario = { ...scenario, generic: built }
    }
  }
  const request = new Request(`http://127.0.0.1${req.url}`, {
    method: 'POST',
    headers: req.headers,
    body,
  })
  let params
  try {
    params = await chatParamsFromRequest(request)
  } catch (thrown) {
    if (thrown instanceof Response) {
      await sendResponse(res, thrown)
      return
    }
    throw thrown
  }
  const stream = chat({
    adapter: scriptedAdapter(scenario),
    messages: params.messages,
    threadId: params.threadId,
    runId: params.runId,
    ...(params.parentRunId ? { parentRunId: params.parentRunId } : {}),
    ...(params.resume ? { resume: params.resume } : {}),
    tools: serverTools(scenario, catalog.serverExecutors),
    ...(lib.native
      ? {
          interrupts: scenario.interrupts,
          middleware: scenarioMiddleware(scenario, catalog.reviewPlan),
        }
      : { middleware: [] }),
  })
  await sendResponse(res, toServerSentEventsResponse(stream))
}

/**
 * Start the server. `lib` = {chat, chatParamsFromRequest, toServerSentEventsResponse,
 * catalog, native}. Port from argv[2] (0 = free port); prints the bound port.
 */
export function startServer(lib) {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method === 'GET' && url.pathname === '/health') {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('ok')
      return
    }
    const match = /^\/scenario\/([A-Za-z0-9._-]+)$/.exec(url.pathname)
    if (req.method !== 'POST' || !match) {
      res.writeHead(404, { 'content-type': 'text/plain' })
      res.end('use POST /scenario/<name> or GET /health\n')
      return
    }
    handleScenario(lib, match[1], req, res).catch((error) => {
      process.stderr.write(`server error: ${error?.stack ?? error}\n`)
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' })
      res.end(String(error?.message ?? error))
    })
  })

  const port = Number.parseInt(process.argv[2] ?? '0', 10)
  server.listen(Number.isFinite(port) ? port : 0, '127.0.0.1', () => {
    process.stdout.write(`${server.address().port}\n`)
  })

  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => {
      server.close()
      process.exit(0)
    })
  }
}
