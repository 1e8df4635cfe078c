// Scenario catalogue shared by both projects' servers and client drivers: tool
// definitions, generic interrupt definitions and the scripted model turns.
// Server and client build it from the SAME zod schemas, so the client's
// recomputed schema hashes match the server's bindings and approvals are typed.
// It imports no package: each project injects its own `toolDefinition`, `z`
// and (native only) `defineInterrupt`, because the two projects pin different
// @tanstack/ai versions in their own node_modules.
export const MODEL = 'scripted-1'
export const EXPIRES_AT = '2099-01-01T00:00:00.000Z'

/** Scenarios the legacy (@tanstack/ai 0.42.0) server supports. */
export const LEGACY_SCENARIOS = ['tool-approval', 'client-tool', 'two-approvals', 'plain', 'scripted']

/**
 * The `scripted` scenario's turns come with each request, under this key of
 * `forwardedProps` (a list of turns, see `scriptedTurns` in server_core.mjs), so one
 * script plays the same turn on both servers.
 */
export const SCRIPTED_TURNS_KEY = 'aguiScriptedTurns'

/**
 * Native only: generic interrupts the `scripted` scenario emits, from this key of
 * `forwardedProps`: `{phase, requests: [{definitionId, key?}]}` (see `scriptedGeneric`).
 */
export const SCRIPTED_INTERRUPTS_KEY = 'aguiScriptedInterrupts'

export function buildCatalog({ toolDefinition, defineInterrupt, z }) {
  // ---------------------------------------------------------------------------
  // Tool definitions (definitions only: the server adds `.server(execute)`, the
  // client uses the definition or `.client(impl)`).
  // ---------------------------------------------------------------------------

  const transferInput = z.object({ amount: z.number(), recipient: z.string() })

  const transferDef = toolDefinition({
    name: 'transfer',
    description: 'Transfer funds to a recipient',
    inputSchema: transferInput,
    needsApproval: true,
  })

  // Same tool, but every decision carries a typed payload.
  // Native only: @tanstack/ai 0.42.0 has no approvalSchema.
  const transferWithSchemaDef = defineInterrupt && toolDefinition({
    name: 'transfer',
    description: 'Transfer funds to a recipient',
    inputSchema: transferInput,
    needsApproval: true,
    approvalSchema: {
      approve: z.object({ note: z.string() }),
      reject: z.object({ reason: z.string() }),
    },
  })

  const deleteFileDef = toolDefinition({
    name: 'delete_file',
    description: 'Delete a file',
    inputSchema: z.object({ path: z.string() }),
    needsApproval: true,
  })

  const pickColorDef = toolDefinition({
    name: 'pick_color',
    description: 'Ask the user to pick a color',
    inputSchema: z.object({ options: z.array(z.string()) }),
    outputSchema: z.object({ color: z.string() }),
  })

  // Plain server tool (no approval) used by the generic boundary scenarios.
  const listChangesDef = toolDefinition({
    name: 'list_changes',
    description: 'List the changes planned for a release',
    inputSchema: z.object({ release: z.string() }),
  })

  // Extra tools of the `scripted` scenario, so a random turn can mix every kind:
  // approval, client and plain server tools, each with a zod schema, a raw JSON
  // Schema (an object literal, used verbatim by TanStack) or none at all.
  const rebootDef = toolDefinition({
    name: 'reboot',
    description: 'Reboot the machine (no input schema)',
    needsApproval: true,
  })

  const archiveDef = toolDefinition({
    name: 'archive',
    description: 'Archive records (raw JSON Schema input)',
    inputSchema: {
      type: 'object',
      properties: { ids: { type: 'array', items: { type: 'number' } }, note: { type: 'string' } },
      required: ['ids'],
    },
    needsApproval: true,
  })

  const askUserDef = toolDefinition({
    name: 'ask_user',
    description: 'Ask the user anything (no schemas)',
  })

  const rateDef = toolDefinition({
    name: 'rate',
    description: 'Ask the user for a rating (raw JSON Schema input and output)',
    inputSchema: { type: 'object', properties: { subject: { type: 'string' } } },
    outputSchema: {
      type: 'object',
      properties: { stars: { type: 'number' } },
      required: ['stars'],
    },
  })

  // A client tool that needs approval first: approved, it runs on the client.
  const signDef = toolDefinition({
    name: 'sign',
    description: 'Sign a document on the client, after approval',
    inputSchema: z.object({ document: z.string() }),
    outputSchema: z.object({ signature: z.string() }),
    needsApproval: true,
  })

  const pingDef = toolDefinition({
    name: 'ping',
    description: 'A server tool without schemas',
  })

  const serverExecutors = {
    transfer: async ({ amount, recipient }) => ({ receiptId: `rcpt_${recipient}_${amount}` }),
    delete_file: async () => ({ deleted: true }),
    list_changes: async () => ({ changes: ['Add search', 'Add tests'] }),
    reboot: async () => ({ rebooted: true }),
    archive: async () => ({ archived: true }),
    ping: async (input) => ({ pong: input ?? null }),
  }

  // ---------------------------------------------------------------------------
  // Generic interrupt definitions
  // ---------------------------------------------------------------------------

  const reviewPlan = defineInterrupt && defineInterrupt({
    id: 'review-plan',
    payloadSchema: z.object({ title: z.string(), changes: z.array(z.string()) }),
    responseSchema: z.object({ approved: z.boolean(), note: z.string().optional() }),
  })

  const chooseAudience = defineInterrupt && defineInterrupt({
    id: 'choose-audience',
    payloadSchema: z.object({ options: z.array(z.string()) }),
    responseSchema: z.object({ audience: z.string() }),
  })

  const INTERRUPT_DEFINITIONS = {
    'review-plan': reviewPlan,
    'choose-audience': chooseAudience,
  }

  function reviewPlanRequest(extra = {}) {
    return reviewPlan.interrupt({
      key: 'initial-plan',
      reason: 'review-required',
      message: 'Review the proposed plan.',
      payload: { title: 'Release plan', changes: ['Add search', 'Add tests'] },
      ...extra,
    })
  }

  function chooseAudienceRequest(extra = {}) {
    return chooseAudience.interrupt({
      key: 'audience',
      reason: 'audience-required',
      message: 'Choose who sees the release notes.',
      payload: { options: ['everyone', 'beta testers'] },
      ...extra,
    })
  }

  const GENERIC_REQUESTS = { 'review-plan': reviewPlanRequest, 'choose-audience': chooseAudienceRequest }

  /**
   * The `scripted` scenario's generic interrupts from a request's
   * `forwardedProps[SCRIPTED_INTERRUPTS_KEY]` (`{phase, requests: [{definitionId, key?}]}`),
   * or an error message.
   */
  function scriptedGeneric(spec) {
    const phases = ['beforeModel', 'afterModel', 'beforeTools', 'afterTools']
    if (!spec || !phases.includes(spec.phase) || !Array.isArray(spec.requests)) {
      return `${SCRIPTED_INTERRUPTS_KEY} must be {phase: one of ${phases.join(', ')}, requests: [...]}`
    }
    for (const request of spec.requests) {
      if (!GENERIC_REQUESTS[request?.definitionId]) return `unknown definitionId ${JSON.stringify(request?.definitionId)}`
    }
    const build = (request) =>
      GENERIC_REQUESTS[request.definitionId](request.key === undefined ? {} : { key: request.key })
    return genericAt(spec.phase, () => spec.requests.map(build))
  }

  // ---------------------------------------------------------------------------
  // Scripted turns. A turn = text deltas + tool calls + finish reason. The turn
  // played is the number of assistant messages already in the conversation, so a
  // continuation plays the "after the tool" turn.
  // ---------------------------------------------------------------------------

  const transferCall = { id: 'call_transfer_1', name: 'transfer', args: { amount: 42, recipient: 'Ada' } }
  const deleteCall = { id: 'call_delete_1', name: 'delete_file', args: { path: 'reports/old.log' } }
  const colorCall = { id: 'call_color_1', name: 'pick_color', args: { options: ['red', 'green', 'blue'] } }
  const changesCall = { id: 'call_changes_1', name: 'list_changes', args: { release: '1.2.0' } }

  const TRANSFER_TURNS = [
    { text: ['I will transf', 'er the money.'], toolCalls: [transferCall] },
    { text: ['Done with th', 'e transfer.'] },
  ]

  const GENERIC_TOOL_TURNS = [
    { text: ['Listing the ', 'planned changes.'], toolCalls: [changesCall] },
    { text: ['Plan reviewed', ', continuing.'] },
  ]

  const BEFORE_MODEL_TURNS = [{ text: ['Plan reviewed', ', continuing.'] }]

  function genericAt(phase, requests) {
    return { phase, requests }
  }

  /**
   * Each scenario: which tool definitions the server registers (and the client
   * declares), which generic definitions both sides register, the generic
   * requests emitted at which boundary phase, and the scripted turns.
   */
  const SCENARIOS = {
    plain: { tools: [], interrupts: [], turns: [{ text: ['Hello! This is ', 'a plain answer.'] }] },
    'tool-approval': { tools: [transferDef], interrupts: [], turns: TRANSFER_TURNS },
    'tool-approval-schema': { tools: [transferWithSchemaDef], interrupts: [], turns: TRANSFER_TURNS },
    'client-tool': {
      tools: [pickColorDef],
      interrupts: [],
      turns: [{ text: ['Let me a', 'sk you.'], toolCalls: [colorCall] }, { text: ['Nice c', 'olor.'] }],
    },
    'two-approvals': {
      tools: [transferDef, deleteFileDef],
      interrupts: [],
      turns: [
        { text: ['Two actions n', 'eed approval.'], toolCalls: [transferCall, deleteCall] },
        { text: ['All action', 's handled.'] },
      ],
    },
    'generic-before-model': {
      tools: [],
      interrupts: [reviewPlan],
      generic: genericAt('beforeModel', () => [reviewPlanRequest()]),
      turns: BEFORE_MODEL_TURNS,
    },
    'generic-after-model': {
      tools: [listChangesDef],
      interrupts: [reviewPlan],
      generic: genericAt('afterModel', () => [reviewPlanRequest()]),
      turns: GENERIC_TOOL_TURNS,
    },
    'generic-before-tools': {
      tools: [listChangesDef],
      interrupts: [reviewPlan],
      generic: genericAt('beforeTools', () => [reviewPlanRequest()]),
      turns: GENERIC_TOOL_TURNS,
    },
    'generic-after-tools': {
      tools: [listChangesDef],
      interrupts: [reviewPlan],
      generic: genericAt('afterTools', () => [reviewPlanRequest()]),
      turns: GENERIC_TOOL_TURNS,
    },
    'generic-two-cards': {
      tools: [],
      interrupts: [reviewPlan, chooseAudience],
      generic: genericAt('beforeModel', () => [reviewPlanRequest(), chooseAudienceRequest()]),
      turns: BEFORE_MODEL_TURNS,
    },
    'generic-expiring': {
      tools: [],
      interrupts: [reviewPlan],
      generic: genericAt('beforeModel', () => [reviewPlanRequest({ expiresAt: EXPIRES_AT })]),
      turns: BEFORE_MODEL_TURNS,
    },
    // Walkthrough only (not recorded): the continuation of the first approval pauses
    // again on a second one, so a recorded continuation can itself be resumed.
    'chained-approvals': {
      tools: [transferDef, deleteFileDef],
      interrupts: [],
      turns: [
        { text: ['First the tr', 'ansfer.'], toolCalls: [transferCall] },
        { text: ['Now the cl', 'ean-up.'], toolCalls: [deleteCall] },
        { text: ['All done', '.'] },
      ],
    },
    // Differential tests only: the turns come from the request (SCRIPTED_TURNS_KEY),
    // the tools are the same on both servers.
    scripted: {
      tools: [
        transferDef,
        deleteFileDef,
        rebootDef,
        archiveDef,
        pickColorDef,
        askUserDef,
        rateDef,
        signDef,
        listChangesDef,
        pingDef,
      ],
      interrupts: defineInterrupt ? [reviewPlan, chooseAudience] : [],
      turnsFromRequest: true,
      turns: [],
    },
    mixed: {
      tools: [transferDef],
      interrupts: [reviewPlan],
      generic: genericAt('beforeTools', () => [reviewPlanRequest()]),
      turns: TRANSFER_TURNS,
    },
  }

  const scenarios = defineInterrupt
    ? SCENARIOS
    : Object.fromEntries(LEGACY_SCENARIOS.map((name) => [name, SCENARIOS[name]]))
  return {
    scenarios,
    serverExecutors,
    reviewPlan,
    scriptedGeneric: defineInterrupt ? scriptedGeneric : undefined,
    interruptDefinitions: defineInterrupt ? INTERRUPT_DEFINITIONS : {},
  }
}
