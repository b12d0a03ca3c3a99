import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { OutputPacer, PACE_MS } from './output-pacer.js'

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }))
afterEach(() => vi.useRealTimers())

function pacer() {
  const sent: string[] = []
  return { sent, pacer: new OutputPacer((data) => sent.push(data.toString())) }
}

it('sends output at once after a quiet spell, and joins what follows within the pace into one, in order', () => {
  const { sent, pacer: output } = pacer()
  output.push(Buffer.from('a'))
  expect(sent).toEqual(['a'])
  for (const chunk of ['b', 'c', 'd']) output.push(Buffer.from(chunk))
  expect(sent).toEqual(['a'])
  vi.advanceTimersByTime(PACE_MS)
  expect(sent).toEqual(['a', 'bcd'])
  vi.advanceTimersByTime(PACE_MS)
  output.push(Buffer.from('e'))
  expect(sent).toEqual(['a', 'bcd', 'e'])
})

it('sends the output that answers a key at once, however recent the last', () => {
  const { sent, pacer: output } = pacer()
  output.push(Buffer.from('a'))
  output.keyTyped()
  output.push(Buffer.from('b'))
  output.push(Buffer.from('c'))
  expect(sent).toEqual(['a', 'b'])
  output.flush()
  expect(sent).toEqual(['a', 'b', 'c'])
})
