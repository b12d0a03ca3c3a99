import { expect, it } from 'vitest'
import { figureKey, numberIn, verdicts } from '../bench/budgets.mjs'

it('names a printed figure by its suite, its section title with numbers as #, and its row', () => {
  expect(figureKey('tasks', 'ListTasks with 1,000 tasks, 500 sequential reads (first read 1.234 ms)', 'p50 ratio to the floor')).toBe(
    'tasks › ListTasks with # tasks, # sequential reads (first read # ms) › p50 ratio to the floor',
  )
})

it('reads the first number of a printed value', () => {
  expect(numberIn('12,345 req/s  15.5 µs server CPU/req')).toBe(12345)
  expect(numberIn('0.76  (target >= 0.80)')).toBe(0.76)
  expect(numberIn('-1.5 µs')).toBe(-1.5)
  expect(numberIn('none')).toBeUndefined()
})

it('calls out figures outside their budget, 15% worse than the recorded run, or no longer printed', () => {
  const budgets = { 'a › t › cpu': { max: 10 }, 'a › t › ratio': { min: 0.8 }, 'a › t › rss': { max: 50 }, 'b › t › gone': { max: 1 }, 'c › t › renamed': { max: 1 } }
  const figures = new Map([
    ['a › t › cpu', '15.5 µs'],
    ['a › t › ratio', '0.90  (target >= 0.80)'],
    ['a › t › rss', '40 KiB'],
  ])
  const recorded = { 'a › t › ratio': '1.12', 'a › t › rss': '45 KiB' }
  expect(verdicts(figures, budgets, recorded, ['a', 'c'])).toEqual([
    'outside its budget: a › t › cpu: budget <= 10, value 15.5',
    'worse than the recorded run by more than 15%: a › t › ratio: recorded 1.12, now 0.9',
    'no figure printed for the budget of c › t › renamed',
  ])
})
