import { expect, it } from 'vitest'
import { evidence, normalizePane } from './delivery.js'

it('normalizes away ANSI, whitespace and box drawing', () => {
  expect(normalizePane('\u001b[1;32m│ hello ─┐\n  world\u001b[0m ╰')).toBe('helloworld')
})

const prompt = 'Summarise the open issues in the tracker and propose an order to fix them'

it('sees a whole prompt, even wrapped across lines', () => {
  expect(evidence('> ', `> Summarise the open issues in the tr\nacker and propose an order to fix them`, prompt)).toBe('whole')
})

it('sees a prompt cut short by its beginning only', () => {
  expect(evidence('> ', '> Summarise the open i', prompt)).toBe('head')
})

it('sees nothing when the pane does not show the prompt', () => {
  expect(evidence('> ', '> [Pasted text #1 +1 lines]', prompt)).toBe('none')
})

it('counts against the baseline, so an earlier identical prompt is not evidence', () => {
  const earlier = `> ${prompt}\nreceived\n> `
  expect(evidence(earlier, earlier, prompt)).toBe('none')
  expect(evidence(earlier, `${earlier}${prompt}`, prompt)).toBe('whole')
})
