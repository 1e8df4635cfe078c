import type { StreamChunk } from '@tanstack/ai'

// Names kept in a list and searched for the chunk's name: the same legacy events.
const LEGACY_EVENTS = ['approval-requested', 'tool-input-available']

export function isLegacy(chunk: StreamChunk): boolean {
  return chunk.type === 'CUSTOM' && LEGACY_EVENTS.includes(chunk.name)
}

export function needsHuman(chunk: StreamChunk): boolean {
  return chunk.type === 'CUSTOM' && ['approval-requested'].includes(chunk.name)
}

// Tool-call part states of the same spelling are current API: no marker.
const WAITING_STATES = ['approval-requested', 'input-complete']
export const waiting = (state: string) => WAITING_STATES.includes(state)
