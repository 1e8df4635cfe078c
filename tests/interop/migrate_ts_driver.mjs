// Drives the compiled examples/migrate-ts `chat-client` module (before or after
// `agui migrate`) against a live server, so the tests can compare what each version
// sends. Package-free: the compiled module brings its own @tanstack/ai-client.
//
// Usage: node migrate_ts_driver.mjs <compiled chat-client.js> <url> <action> <threadId>
//   action: approve | reject | approve-all | approve-listed
// Prints one JSON object: {ids, after, status, messages}.
import { pathToFileURL } from 'node:url'

const SETTLE_MS = 150
const POLL_MS = 10
const IDLE_TIMEOUT_MS = 20000

const [modulePath, url, action, threadId] = process.argv.slice(2)
const app = await import(pathToFileURL(modulePath).href)
const client = app.createClient(url, threadId)

async function waitIdle() {
  const started = Date.now()
  let quietSince = null
  for (;;) {
    const status = client.getStatus()
    const busy = client.getIsLoading() || status === 'submitted' || status === 'streaming'
    if (busy) quietSince = null
    else if (quietSince === null) quietSince = Date.now()
    else if (Date.now() - quietSince >= SETTLE_MS) return
    if (Date.now() - started > IDLE_TIMEOUT_MS) throw new Error('client still busy')
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

await client.sendMessage('Please run the scenario.')
await waitIdle()
const ids = app.pendingIds(client)
if (action === 'approve') await app.approve(client, ids[0])
else if (action === 'reject') await app.reject(client, ids[0])
else if (action === 'approve-all') await app.approveAll(client)
else if (action === 'approve-listed') await app.approveListed(client, ids)
else throw new Error(`unknown action ${action}`)
await waitIdle()
process.stdout.write(
  JSON.stringify({
    ids,
    after: app.pendingIds(client),
    status: client.getStatus(),
    messages: client.getMessages().length,
  }) + '\n',
)
