// Whether the real @vue/compiler-sfc compiles each .vue file: the oracle for "agui's
// output is still a valid component" (TODO markers included).
//
// Usage: node sfc_compile.cjs < sources.json   (a JSON array of .vue file texts)
// Prints a JSON array, one entry per source: {errors: [...], render: "..."} with every
// error the parser, the script compiler and the template compiler report, and the
// render function as a production build makes it (`comments: false`: no HTML comments).
const { parse, compileScript, compileTemplate } = require('@vue/compiler-sfc')

let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => {
  input += chunk
})
process.stdin.on('end', () => {
  const results = JSON.parse(input).map((source) => {
    const { descriptor, errors } = parse(source, { filename: 'Component.vue' })
    const found = errors.map((error) => String(error.message || error))
    let render = ''
    try {
      const script = compileScript(descriptor, { id: 'c' })
      const template = compileTemplate({
        source: descriptor.template ? descriptor.template.content : '',
        filename: 'Component.vue',
        id: 'c',
        isProd: true,
        compilerOptions: { bindingMetadata: script.bindings, comments: false },
      })
      found.push(...template.errors.map((error) => String(error.message || error)))
      render = template.code
    } catch (error) {
      found.push(String(error.message || error))
    }
    return { errors: found, render }
  })
  process.stdout.write(JSON.stringify(results))
})
