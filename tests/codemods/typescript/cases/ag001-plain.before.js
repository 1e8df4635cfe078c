// Plain JavaScript: the same rewrite, no types.
export async function approve(client, id) {
  await client.addToolApprovalResponse({ id, approved: true })
}
