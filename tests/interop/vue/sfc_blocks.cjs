// Where the real @vue/compiler-sfc finds a component's <script> blocks: the oracle
// for agui's scanner (codemods/typescript/components.py).
//
// Usage: node sfc_blocks.cjs < sources.json   (a JSON array of .vue file texts)
// Prints a JSON array, one entry per source: {blocks: [[start, end], ...], errors: [...]}
// with the offsets of each <script>/<script setup> body (UTF-16 units; ASCII sources
// make them byte offsets), in file order, and the parser's error messages.
const { parse } = require('@vue/compiler-sfc')

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  input += chunk
})
process.stdin.on('end', () => {
  const results = JSON.parse(input).map((source) => {
    const { descriptor, errors } = parse(source, { ignoreEmpty: false })
    const blocks = [descriptor.script, descriptor.scriptSetup]
      .filter(Boolean)
      .map((block) => [block.loc.start.offset, block.loc.end.offset])
      .sort((a, b) => a[0] - b[0])
    return { blocks, errors: errors.map((error) => String(error.message || error)) }
  })
  process.stdout.write(JSON.stringify(results))
})
