// Plain JavaScript: the same rewrite, no types.
export async function approve(client, id) {
  client.getInterrupts().filter((item) => item.kind === 'tool-approval').find((item) => item.id === id)?.resolveInterrupt(true)
}
