import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { expect, it } from 'vitest'

// The shape of the sources, kept by a test rather than by review: no file too long to
// hold in one's head, no import cycle, and the event bus below the domains.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const PACKAGES = join(ROOT, 'packages')
const MAX_LINES = 400
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : filesUnder(path)
    return CODE.test(entry.name) ? [path] : []
  })
}

const packages = readdirSync(PACKAGES)
const sources = packages.flatMap((name) => filesUnder(join(PACKAGES, name, 'src')))
const benches = packages.flatMap((name) => filesUnder(join(PACKAGES, name, 'bench')))
const isTest = (path: string) => /\.test\.[cm]?[jt]sx?$/.test(path)
const shown = (path: string) => relative(ROOT, path)

/** Each source file's local imports (type-only ones too: a cycle of types is still a knot), resolved to files. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => {
        const base = resolve(dirname(file), name)
        const stem = base.replace(/\.[cm]?js$/, '')
        return [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, join(base, 'index.ts')].find((candidate) => known.has(candidate))
      })
      .filter((target): target is string => target !== undefined)
    graph.set(file, targets)
  }
  return graph
}

/** The strongly connected components of more than one file (Tarjan), and files importing themselves. */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file) as number)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number))
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop() as string
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.map(shown).sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return found
}

it(`keeps every source and bench file (tests aside) within ${MAX_LINES} lines`, () => {
  const long = [...sources, ...benches]
    .filter((path) => !isTest(path))
    .map((path) => ({ path: shown(path), lines: readFileSync(path, 'utf8').split('\n').length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES)
  expect(long, 'split these into files named for what each part holds').toEqual([])
})

it('has no import cycle among the files of any package', () => {
  const graph = importGraph(sources)
  // The check itself must see imports, or it would pass on anything.
  expect([...graph.values()].flat().length).toBeGreaterThan(sources.length / 2)
  expect(cycles(graph), 'move what both sides need below both').toEqual([])
})

it('keeps the event bus below the domains: an events/ file a domain imports imports no domain', () => {
  const core = join(PACKAGES, 'core', 'src')
  const events = join(core, 'events') + '/'
  // Domains are core's directories but the bus's own and the adapters below everything.
  const inDomain = (path: string) => path.startsWith(core + '/') && relative(core, path).includes('/') && !path.startsWith(events) && !path.startsWith(join(core, 'infra') + '/')
  const graph = importGraph(sources.filter((path) => path.startsWith(core + '/') && !isTest(path)))
  const used = new Set([...graph].filter(([file]) => inDomain(file)).flatMap(([, targets]) => targets.filter((target) => target.startsWith(events))))
  expect(used.size, 'the domains publish to the bus').toBeGreaterThan(0)
  const backArrows = [...used].flatMap((file) => (graph.get(file) ?? []).filter(inDomain).map((target) => `${shown(file)} -> ${shown(target)}`))
  expect(backArrows, 'a feed that reads a domain is handed to it from core.ts, not imported by it').toEqual([])
})
