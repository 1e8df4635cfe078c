// A plain JavaScript widget from before the TypeScript migration.
export function bindApproveButton(button, client, approvalId) {
  button.addEventListener('click', async () => {
    await client.addToolApprovalResponse({ id: approvalId, approved: true })
  })
  return client.getPendingInterrupts().length
}
