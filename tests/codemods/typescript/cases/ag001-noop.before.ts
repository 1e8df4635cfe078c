// addToolApprovalResponse is gone from this module; only this comment and a string mention it.
export const note = 'addToolApprovalResponse'

export function addToolApprovalResponseCount(calls: string[]): number {
  return calls.filter((call) => call === note).length
}
