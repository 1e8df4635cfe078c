// Our old server bridge: it still emits and recognises the CUSTOM approval events
// that @tanstack/ai 0.42 sent before runs ended with interrupt outcomes.
import type { ApprovalRequestedEvent, StreamChunk } from '@tanstack/ai'

export function approvalRequested(toolCallId: string, input: unknown): ApprovalRequestedEvent {
  return {
    type: 'CUSTOM',
    name: 'approval-requested',
    timestamp: Date.now(),
    value: {
      toolCallId,
      toolName: 'transfer',
      input,
      approval: { id: `approval_${toolCallId}`, needsApproval: true },
    },
  }
}

export function needsClientTool(chunk: StreamChunk): boolean {
  return chunk.type === 'CUSTOM' && chunk.name === 'tool-input-available'
}
