// Budgets for the printed figures, and the last recorded run: `pnpm bench --check` ends
// with one line per figure outside its budget and per figure more than 15% worse than the
// recorded run; `pnpm bench --record` keeps this run as the recorded one (bench/last-run.json,
// committed) and writes docs/benchmarks.md's table of recorded figures from it. Neither
// fails anything: the machines are noisy, and this is what a developer reads before stopping.
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const BUDGETS = fileURLToPath(new URL('./budgets.json', import.meta.url))
const LAST_RUN = fileURLToPath(new URL('./last-run.json', import.meta.url))
const DOCS = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url))
/** How much worse than the recorded run a budgeted figure may get before it is called out. */
const SLIP = 0.15
const TABLE_START = '<!-- recorded run: written by pnpm bench --record -->'
const TABLE_END = '<!-- end of recorded run -->'

/** A printed figure's name: its suite, its section's title with numbers as #, its row's label. */
export function figureKey(suite, title, label) {
  return `${suite} › ${title.replace(/\d[\d,.]*/g, '#')} › ${label}`
}

/** The first number a printed value holds (`1,234 req/s`, `15.5 µs server CPU/req`, `0.76  (target >= 0.80)`). */
export function numberIn(value) {
  const found = /-?\d[\d,]*(\.\d+)?/.exec(value)
  return found ? Number(found[0].replaceAll(',', '')) : undefined
}

/**
 * What --check says of a run's figures (key → printed value): each budgeted figure
 * outside its budget, each more than 15% worse than in the recorded run, and each budget
 * whose figure this run printed none of (a renamed row), when its suite ran.
 */
export function verdicts(figures, budgets, recorded = {}, suites = undefined) {
  const lines = []
  for (const [key, budget] of Object.entries(budgets)) {
    const printed = figures.get(key)
    if (printed === undefined) {
      if (!suites || suites.includes(key.split(' › ')[0])) lines.push(`no figure printed for the budget of ${key}`)
      continue
    }
    const value = numberIn(printed)
    if (value === undefined) continue
    const limit = budget.max ?? budget.min
    const worse = (a, b) => (budget.max !== undefined ? a > b : a < b)
    if (worse(value, limit)) lines.push(`outside its budget: ${key}: budget ${budget.max !== undefined ? '<=' : '>='} ${limit}, value ${value}`)
    const before = recorded[key] === undefined ? undefined : numberIn(recorded[key])
    if (before !== undefined && worse(value, before * (budget.max !== undefined ? 1 + SLIP : 1 - SLIP))) {
      lines.push(`worse than the recorded run by more than 15%: ${key}: recorded ${before}, now ${value}`)
    }
  }
  return lines
}

async function readJson(path, otherwise) {
  try {
    return JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    if (error.code === 'ENOENT') return otherwise
    throw error
  }
}

/** `--check`: the verdicts on this run's figures, printed last. */
export async function check(figures, suites) {
  const budgets = await readJson(BUDGETS, {})
  const recorded = (await readJson(LAST_RUN, { figures: {} })).figures
  const lines = verdicts(figures, budgets, recorded, suites)
  process.stdout.write(`\nBudgets (${BUDGETS}, recorded run ${LAST_RUN}): ${lines.length === 0 ? 'every figure within its budget' : `${lines.length} to look at`}\n`)
  for (const line of lines) process.stdout.write(`  ${line}\n`)
}

/** `--record`: this run's figures become the recorded run, and the docs' table is written from it. */
export async function record(figures) {
  const run = { recorded_at: new Date().toISOString(), figures: Object.fromEntries(figures) }
  await writeFile(LAST_RUN, `${JSON.stringify(run, null, 2)}\n`)
  const budgets = await readJson(BUDGETS, {})
  const rows = [...figures].map(([key, value]) => {
    const budget = budgets[key]
    const target = budget ? `${budget.max !== undefined ? '<=' : '>='} ${budget.max ?? budget.min}` : ''
    return `| ${key.replaceAll('|', '\\|')} | ${value.replaceAll('|', '\\|')} | ${target} |`
  })
  const table = [TABLE_START, '', `Recorded ${run.recorded_at}.`, '', '| Figure | Value | Budget |', '|---|---|---|', ...rows, '', TABLE_END].join('\n')
  const docs = await readFile(DOCS, 'utf8')
  const start = docs.indexOf(TABLE_START)
  const end = docs.indexOf(TABLE_END)
  if (start < 0 || end < 0) throw new Error(`${DOCS} has no recorded-run table markers`)
  await writeFile(DOCS, `${docs.slice(0, start)}${table}${docs.slice(end + TABLE_END.length)}`)
}
