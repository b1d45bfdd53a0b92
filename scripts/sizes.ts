// The size limits of issue 22: no source file over ~400 lines and no function over ~80 in lib/core and hooks/.
// Lists what is over (files, then functions with where they start), and with --all the longest function of every
// file. Prints only; it does not fail (some must stay over: see the notes the list is read with).
//   npm run sizes            npm run sizes -- --all [path…]
import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

const MAX_FILE = 400
const MAX_FUNCTION = 80
const args = process.argv.slice(2)
const all = args.includes('--all')
const roots = args.filter((a) => !a.startsWith('--'))

function walk(p: string): string[] {
  if (fs.statSync(p).isFile()) return p.endsWith('.ts') ? [p] : []
  return fs.readdirSync(p).flatMap((e) => walk(path.join(p, e)))
}

interface Fn {
  name: string
  line: number
  lines: number
}

function functionsOf(file: string, text: string): Fn[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const out: Fn[] = []
  const visit = (node: ts.Node, owner: string) => {
    let name = owner
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isFunctionExpression(node) ||
      ts.isArrowFunction(node)
    ) {
      const named = (node as ts.FunctionDeclaration).name?.getText(sf)
      const parent = node.parent
      name =
        named ??
        (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)
          ? parent.name.getText(sf)
          : `${owner}:<anonymous>`)
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1
      out.push({ name, line: start, lines: end - start + 1 })
    }
    ts.forEachChild(node, (child) => visit(child, name))
  }
  visit(sf, '')
  return out
}

const files = (roots.length ? roots : ['lib/core', 'hooks']).flatMap(walk).sort()
const overFiles: string[] = []
const overFns: string[] = []
const rows: string[] = []
for (const file of files) {
  const text = fs.readFileSync(file, 'utf8')
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  const fns = functionsOf(file, text)
  if (lines > MAX_FILE) overFiles.push(`${String(lines).padStart(5)}  ${file}`)
  for (const f of fns)
    if (f.lines > MAX_FUNCTION) overFns.push(`${String(f.lines).padStart(5)}  ${file}:${f.line} ${f.name}`)
  const longest = fns.reduce<Fn | undefined>((a, f) => (!a || f.lines > a.lines ? f : a), undefined)
  rows.push(
    `${String(lines).padStart(5)}  ${file}${longest ? `  (longest function: ${longest.name}, ${longest.lines} lines)` : ''}`,
  )
}
if (all) console.log(`Files (lines, longest function):\n${rows.join('\n')}\n`)
console.log(`Files over ${MAX_FILE} lines: ${overFiles.length}\n${overFiles.join('\n')}`)
console.log(`\nFunctions over ${MAX_FUNCTION} lines: ${overFns.length}\n${overFns.join('\n')}`)
