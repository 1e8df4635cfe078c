// The app's own recovery helper shares the legacy name; it is not the client's method.
const resumed: string[] = []

const resumeInterrupts = (ids: string[]): number => resumed.push(...ids)

export function recover(ids: string[]) {
  return resumeInterrupts(ids)
}
