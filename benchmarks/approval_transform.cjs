// A jscodeshift transform doing what agui's AG001 does to addToolApprovalResponse
// calls (member calls on a client, and the name destructured from useChat), for
// benchmarks/migrate_bench.py. Like agui, it skips files that never mention the name
// before parsing them.
const NAME = 'addToolApprovalResponse'

module.exports = function transform(file, api) {
  if (process.env.AGUI_BENCH_PREFILTER === "1" && !file.source.includes(NAME)) return undefined
  const j = api.jscodeshift
  const root = j(file.source)
  let changed = false
  root.find(j.CallExpression).forEach((path) => {
    const callee = path.node.callee
    let items
    if (callee.type === 'MemberExpression' && callee.property.name === NAME) {
      items = `${j(callee.object).toSource()}.getInterrupts()`
    } else if (callee.type === 'Identifier' && callee.name === NAME) {
      items = 'interrupts'
    } else {
      return
    }
    const [argument] = path.node.arguments
    if (!argument || argument.type !== 'ObjectExpression') return
    const value = (key) => {
      const found = argument.properties.find((p) => p.key && p.key.name === key)
      return found ? j(found.value).toSource() : undefined
    }
    const id = value('id')
    const approved = value('approved')
    if (id === undefined || approved === undefined) return
    const text =
      `${items}.filter((item) => item.kind === 'tool-approval')` +
      `.find((item) => item.id === ${id})?.resolveInterrupt(${approved})`
    const replacement = j(text).get().node.program.body[0].expression
    const target = path.parent.node.type === 'AwaitExpression' ? path.parent : path
    target.replace(replacement)
    changed = true
  })
  return changed ? root.toSource() : undefined
}
