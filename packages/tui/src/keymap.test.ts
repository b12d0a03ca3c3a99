import { describe, expect, it } from 'vitest'
import type { Key } from 'ink'
import { MAIN_KEYS } from './keys.js'
import { mainAction } from './keymap.js'
import { sampleSession } from './sample.js'

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
}
const press = (input: string, key: Partial<Key> = {}) => [input, { ...NO_KEY, ...key }] as const

describe('the main keymap', () => {
  const otter = sampleSession({ title: 'otter', tabs: [{ kind: 0, kind_name: 'agent', name: 'agent', tmux_name: 'svc_r012_otter' }] })

  it('moves with the arrows, j/k and the page keys', () => {
    expect([press('', { upArrow: true }), press('k'), press('', { downArrow: true }), press('j'), press('', { pageUp: true }), press('', { pageDown: true })].map(([input, key]) => mainAction(input, key, otter))).toEqual(
      [-1, -1, 1, 1, -10, 10].map((step) => ({ type: 'move', step })),
    )
  })

  it("opens a session's dialog on the session selected, and calls for it", () => {
    expect(mainAction(...press('K'), otter)).toEqual({ type: 'open', dialog: { kind: 'kill', session: otter } })
    expect(mainAction(...press('p'), otter)).toEqual({ type: 'open', dialog: { kind: 'prompt', session: otter } })
    expect(mainAction(...press('a'), otter)).toEqual({ type: 'archive', session: otter })
    expect(mainAction(...press('', { return: true }), otter)).toEqual({ type: 'attach', session: otter })
  })

  it('does nothing with a session key and no session, or enter and no agent tab; says an archived session is archived', () => {
    expect(['K', 'p', 't', 'h', 'a', 'r'].map((input) => mainAction(...press(input), undefined))).toEqual([undefined, undefined, undefined, undefined, undefined, undefined])
    expect(mainAction(...press('', { return: true }), sampleSession({ tabs: [] }))).toBeUndefined()
    const archived = sampleSession({ liveness_name: 'archived' })
    expect(mainAction(...press('', { return: true }), archived)).toEqual({ type: 'archived', session: archived })
    expect(mainAction(...press('x'), otter)).toBeUndefined()
  })

  it('does something with every key the footer and the help list, a session selected', () => {
    const keys = MAIN_KEYS.map(({ key }) => (key === 'enter' ? press('', { return: true }) : press(key)))
    expect(keys.filter(([input, key]) => mainAction(input, key, otter) === undefined)).toEqual([])
    expect(mainAction(...press('', { escape: true }), undefined)).toEqual({ type: 'clear-filter' })
    expect(mainAction(...press('q'), undefined)).toEqual({ type: 'quit' })
  })
})
