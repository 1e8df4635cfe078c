import type { ApprovalRequestedEvent, StreamChunk } from '@tanstack/ai'

export function approvalRequest(toolCallId: string): ApprovalRequestedEvent {
  return {
    type: 'CUSTOM',
    name: 'approval-requested',
    timestamp: Date.now(),
    value: {
      toolCallId,
      toolName: 'transfer',
      input: { amount: 42 },
      approval: { id: `approval_${toolCallId}`, needsApproval: true },
    },
  }
}

export function isClientToolCall(chunk: StreamChunk): boolean {
  return chunk.type === 'CUSTOM' && chunk.name === 'tool-input-available'
}

export function describe(chunk: StreamChunk): string {
  if (chunk.type !== 'CUSTOM') return 'other'
  switch (chunk.name) {
    case 'approval-requested':
      return 'approval'
    default:
      return 'custom'
  }
}

// A tool-call part state, current API: not an event, left alone.
export function waiting(part: { state: string }): boolean {
  return part.state === 'approval-requested'
}
