import type { StreamChunk } from '@tanstack/ai'

// Names kept in a list and searched for the chunk's name: the same legacy events.
// TODO(agui): AG006 legacy 'approval-requested' event: emit or read a RUN_FINISHED interrupt outcome with reason "tool_call" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
// TODO(agui): AG006 legacy 'tool-input-available' event: emit or read a RUN_FINISHED interrupt outcome with reason "tanstack:client_tool_execution" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
const LEGACY_EVENTS = ['approval-requested', 'tool-input-available']

export function isLegacy(chunk: StreamChunk): boolean {
  return chunk.type === 'CUSTOM' && LEGACY_EVENTS.includes(chunk.name)
}

export function needsHuman(chunk: StreamChunk): boolean {
  // TODO(agui): AG006 legacy 'approval-requested' event: emit or read a RUN_FINISHED interrupt outcome with reason "tool_call" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
  return chunk.type === 'CUSTOM' && ['approval-requested'].includes(chunk.name)
}

// Tool-call part states of the same spelling are current API: no marker.
const WAITING_STATES = ['approval-requested', 'input-complete']
export const waiting = (state: string) => WAITING_STATES.includes(state)

// A name kept in a const and compared with the chunk's name, or switched on.
// TODO(agui): AG006 legacy 'approval-requested' event: emit or read a RUN_FINISHED interrupt outcome with reason "tool_call" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
const APPROVAL_REQUESTED = 'approval-requested' as const
// TODO(agui): AG006 legacy 'tool-input-available' event: emit or read a RUN_FINISHED interrupt outcome with reason "tanstack:client_tool_execution" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
const CLIENT_TOOL = 'tool-input-available'

export function kind(chunk: StreamChunk): string {
  if (chunk.type !== 'CUSTOM') return 'other'
  if (chunk.name === APPROVAL_REQUESTED) return 'approval'
  switch (chunk.name) {
    case CLIENT_TOOL:
      return 'client tool'
  }
  return 'custom'
}

// The same spelling kept for a part's state is current API: no marker.
const WAITING = 'approval-requested'
export const isWaiting = (part: { state: string }) => part.state === WAITING
