// Client driver core shared by native/client.mjs (ai-client 0.33.2) and
// legacy/client.mjs (ai-client 0.22.1). It imports no package itself: each
// project passes its own ChatClient / fetchServerSentEvents and tool builders.
//
// Input: one JSON "script" file (see tests/interop/README.md). Output: one JSON
// result object on stdout. Only the public ChatClient API is used.
import { readFileSync } from 'node:fs'

const SETTLE_MS = 75
const POLL_MS = 5
const IDLE_TIMEOUT_MS = 20000

const ITEM_KEY_ORDER = [
  'kind',
  'id',
  'interruptId',
  'reason',
  'message',
  'toolName',
  'toolCallId',
  'originalArgs',
  'definitionId',
  'key',
  'payload',
  'status',
  'canResolve',
  'threadId',
  'interruptedRunId',
  'generation',
  'expiresAt',
  'responseSchema',
  'metadata',
  'binding',
  'errors',
  'error',
]

function toJson(value) {
  if (value === undefined) return undefined
  return JSON.parse(JSON.stringify(value))
}

/**
 * Every JSON-able field of a bound interrupt item (fields that do not apply to
 * its kind are absent), plus the names of its methods.
 */
export function serializeItem(item) {
  const out = {}
  const methods = []
  const keys = Object.keys(item)
  const ordered = [...ITEM_KEY_ORDER.filter((k) => keys.includes(k)), ...keys.filter((k) => !ITEM_KEY_ORDER.includes(k))]
  for (const key of ordered) {
    const value = item[key]
    if (typeof value === 'function') methods.push(key)
    else if (value !== undefined) out[key] = sortKeysDeep(toJson(value))
  }
  const METHOD_ORDER = ['resolveInterrupt', 'cancel', 'clearResolution']
  out.methods = [
    ...METHOD_ORDER.filter((m) => methods.includes(m)),
    ...methods.filter((m) => !METHOD_ORDER.includes(m)),
  ]
  return out
}

/** Nested values with object keys sorted (top-level item keys keep ITEM_KEY_ORDER). */
function sortKeysDeep(value) {
  if (Array.isArray(value)) return value.map(sortKeysDeep)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeysDeep(value[key])]),
  )
}

function errorText(error) {
  if (error === undefined || error === null) return null
  if (error instanceof Error) return `${error.name}: ${error.message}`
  return String(error)
}

function matches(item, selector) {
  for (const key of ['id', 'interruptId', 'kind', 'definitionId', 'toolName', 'toolCallId', 'key']) {
    if (selector[key] !== undefined && item[key] !== selector[key]) return false
  }
  return true
}

/**
 * Run one script. `project` provides:
 *   ChatClient, fetchServerSentEvents,
 *   buildTools(script) -> client tools array,
 *   buildInterrupts(script) -> interrupt definitions (native) or undefined,
 *   hasInterrupts: boolean (ai-client >= 0.43 exposes getInterrupts()).
 */
export async function runDriver(project, scriptPath) {
  const script = JSON.parse(readFileSync(scriptPath, 'utf8'))
  const scenario = script.scenario ?? (typeof script.tools === 'string' ? script.tools : undefined)
  const message = script.message ?? `Please run the ${scenario ?? 'plain'} scenario.`
  const staticResponses = Array.isArray(script.staticResponses) ? script.staticResponses : null

  const result = {
    interruptsAfterRun1: [],
    requests: [],
    responses: [],
    interruptsAfterAnswers: [],
    messages: [],
    errors: [],
    interruptErrors: [],
    status: null,
  }

  let inflight = 0
  let staticIndex = 0
  const pendingReads = []

  const realFetch = globalThis.fetch
  async function recordingFetch(input, init) {
    inflight += 1
    try {
      const bodyText = typeof init?.body === 'string' ? init.body : null
      let parsed = null
      try {
        parsed = bodyText === null ? null : JSON.parse(bodyText)
      } catch {
        parsed = bodyText
      }
      result.requests.push(parsed)
      const slot = result.responses.length
      result.responses.push(null)
      let response
      if (staticResponses) {
        if (staticIndex >= staticResponses.length) {
          result.errors.push(`staticResponses: request ${slot + 1} has no response file left`)
          response = new Response('no static response left', { status: 500 })
        } else {
          const bytes = readFileSync(staticResponses[staticIndex])
          staticIndex += 1
          response = new Response(bytes, {
            status: 200,
            headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' },
          })
        }
      } else {
        response = await realFetch(input, init)
      }
      const read = response
        .clone()
        .text()
        .then(
          (text) => {
            result.responses[slot] = text
          },
          (error) => {
            result.errors.push(`reading response ${slot + 1}: ${errorText(error)}`)
          },
        )
      pendingReads.push(read)
      return response
    } finally {
      inflight -= 1
    }
  }

  const client = new project.ChatClient({
    ...(script.threadId ? { threadId: script.threadId } : {}),
    ...(script.forwardedProps ? { forwardedProps: script.forwardedProps } : {}),
    connection: project.fetchServerSentEvents(script.url ?? 'http://127.0.0.1:9/unused', {
      fetchClient: recordingFetch,
    }),
    tools: project.buildTools(script),
    // The `scripted` scenario reads the model's turns from here (SCRIPTED_TURNS_KEY).
    ...(script.forwardedProps ? { forwardedProps: script.forwardedProps } : {}),
    ...(project.hasInterrupts ? { interrupts: project.buildInterrupts(script) } : {}),
    onError: (error) => {
      result.errors.push(errorText(error))
    },
  })

  function busy() {
    const status = client.getStatus()
    return inflight > 0 || client.getIsLoading() || status === 'submitted' || status === 'streaming'
  }

  async function waitIdle() {
    const started = Date.now()
    let quietSince = null
    for (;;) {
      await Promise.allSettled(pendingReads)
      if (busy()) quietSince = null
      else if (quietSince === null) quietSince = Date.now()
      else if (Date.now() - quietSince >= SETTLE_MS) return
      if (Date.now() - started > IDLE_TIMEOUT_MS) {
        result.errors.push(`driver: client still busy after ${IDLE_TIMEOUT_MS} ms`)
        return
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  }

  function interrupts() {
    return project.hasInterrupts ? client.getInterrupts() : []
  }

  function findItem(selector, step) {
    const item = interrupts().find((candidate) => matches(candidate, selector))
    if (!item) {
      throw new Error(`no interrupt matches ${JSON.stringify(selector)} (step ${step})`)
    }
    return item
  }

  async function applyStep(step, index) {
    const action = step.action ?? 'resolve'
    switch (action) {
      case 'resolve':
      case 'resolveByDefinition': {
        const item = findItem(step, index)
        if (step.options !== undefined) item.resolveInterrupt(step.value, step.options)
        else item.resolveInterrupt(step.value)
        return
      }
      case 'cancel':
        findItem(step, index).cancel()
        return
      case 'clearResolution':
        findItem(step, index).clearResolution()
        return
      case 'addToolResult':
        await client.addToolResult({
          toolCallId: step.toolCallId,
          tool: step.tool,
          output: step.output,
          ...(step.state !== undefined ? { state: step.state } : {}),
          ...(step.errorText !== undefined ? { errorText: step.errorText } : {}),
        })
        return
      case 'addToolApprovalResponse':
        await client.addToolApprovalResponse({ id: step.id, approved: step.approved })
        return
      case 'resolveInterrupts':
        client.resolveInterrupts(step.approved)
        return
      case 'cancelInterrupts':
        client.cancelInterrupts()
        return
      case 'retryInterrupts':
        client.retryInterrupts()
        return
      case 'resumeInterruptsUnsafe':
        await client.resumeInterruptsUnsafe(step.resume, step.state)
        return
      case 'sendMessage':
        await client.sendMessage(step.message)
        return
      default:
        throw new Error(`unknown answer action ${JSON.stringify(action)}`)
    }
  }

  try {
    await client.sendMessage(message)
  } catch (error) {
    result.errors.push(`sendMessage: ${errorText(error)}`)
  }
  result.interruptsAfterRun1 = interrupts().map(serializeItem)
  await waitIdle()

  const answers = Array.isArray(script.answers) ? script.answers : []
  for (const [index, step] of answers.entries()) {
    try {
      await applyStep(step, index)
    } catch (error) {
      result.errors.push(`answers[${index}]: ${errorText(error)}`)
    }
    await waitIdle()
  }

  result.interruptsAfterAnswers = interrupts().map(serializeItem)
  result.messages = toJson(client.getMessages())
  if (project.hasInterrupts) {
    result.interruptErrors = toJson(client.getInterruptState().interruptErrors ?? [])
  }
  const finalError = client.getError()
  if (finalError && !result.errors.includes(errorText(finalError))) {
    result.errors.push(errorText(finalError))
  }
  result.status = client.getStatus()
  return result
}

const DEFAULT_AUTO_OUTPUT = { color: 'blue' }

/**
 * Client-side tools for `script.tools` (a scenario name or a list of them): the
 * scenario's approval tools and client tools, i.e. every tool the server does
 * not simply execute. With `script.auto`, pick_color gets an implementation
 * returning `script.autoOutput` (default {color: "blue"}).
 */
export function clientTools(catalog, script) {
  if (!script.tools) return []
  const names = Array.isArray(script.tools) ? script.tools : [script.tools]
  const tools = []
  for (const name of names) {
    const scenario = catalog.scenarios[name]
    if (!scenario) throw new Error(`unknown scenario for tools: ${JSON.stringify(name)}`)
    for (const def of scenario.tools) {
      if (def.needsApproval !== true && catalog.serverExecutors[def.name]) continue
      if (def.name === 'pick_color' && script.auto) {
        const output = script.autoOutput ?? DEFAULT_AUTO_OUTPUT
        tools.push(def.client(async () => output))
      } else {
        tools.push(def.client())
      }
    }
  }
  return tools
}

/** CLI entry used by both projects' client.mjs. */
export async function main(project) {
  const scriptPath = process.argv[2]
  if (!scriptPath) {
    process.stderr.write('usage: node client.mjs <script.json>\n')
    process.exit(2)
  }
  let result
  try {
    result = await runDriver(project, scriptPath)
  } catch (error) {
    process.stderr.write(`client driver: ${errorText(error)}\n`)
    process.exit(2)
  }
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(0))
}
