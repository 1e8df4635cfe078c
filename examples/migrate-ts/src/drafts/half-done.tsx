// Work in progress: does not parse yet.
export function Draft() {
  const { addToolApprovalResponse } = useChat(
}
