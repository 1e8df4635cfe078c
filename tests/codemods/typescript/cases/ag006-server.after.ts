// TODO(agui): AG006 deprecated ApprovalRequestedEvent type: legacy 'approval-requested' event: emit or read a RUN_FINISHED interrupt outcome with reason "tool_call" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
import type { ApprovalRequestedEvent, StreamChunk } from '@tanstack/ai'

// TODO(agui): AG006 deprecated ApprovalRequestedEvent type: legacy 'approval-requested' event: emit or read a RUN_FINISHED interrupt outcome with reason "tool_call" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
export function approvalRequest(toolCallId: string): ApprovalRequestedEvent {
  // TODO(agui): AG006 legacy 'approval-requested' event: emit or read a RUN_FINISHED interrupt outcome with reason "tool_call" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
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
  // TODO(agui): AG006 legacy 'tool-input-available' event: emit or read a RUN_FINISHED interrupt outcome with reason "tanstack:client_tool_execution" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
  return chunk.type === 'CUSTOM' && chunk.name === 'tool-input-available'
}

export function describe(chunk: StreamChunk): string {
  if (chunk.type !== 'CUSTOM') return 'other'
  switch (chunk.name) {
    // TODO(agui): AG006 legacy 'approval-requested' event: emit or read a RUN_FINISHED interrupt outcome with reason "tool_call" instead — README#ag006-replace-legacy-approval-events-with-interrupt-outcomes
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
