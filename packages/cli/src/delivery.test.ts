import { afterEach, expect, it, vi } from 'vitest'
import { deliveryNote } from './delivery.js'

afterEach(() => {
  process.exitCode = undefined
  vi.restoreAllMocks()
})

it('claims delivery only for delivered, and fails the command only for not-delivered', () => {
  const stderr = vi.spyOn(process.stderr, 'write').mockReturnValue(true)
  expect(deliveryNote('t', 'delivered')).toBe('prompt delivered')
  expect(deliveryNote('t', 'sent-unverified')).toBe(
    'prompt sent but unverified: Enter was pressed, yet the pane did not show the exact prompt, or the agent did not show that it took it; look with: svc sessions attach t',
  )
  expect(deliveryNote('t', 'could-not-confirm')).toContain('not confirmed')
  expect(process.exitCode).toBeUndefined()
  expect(stderr).not.toHaveBeenCalled()

  expect(deliveryNote('t', 'not-delivered')).toMatch(/^prompt NOT delivered/)
  expect(process.exitCode).toBe(4)
  expect(stderr).toHaveBeenCalledWith(expect.stringContaining('svc: t: prompt NOT delivered'))
  // The daemon's reason, when it has one, replaces the pane's evidence.
  expect(deliveryNote('t', 'not-delivered', 'the agent asks "folder trust", which is left to you: answer it in its terminal')).toBe(
    'prompt NOT delivered: the agent asks "folder trust", which is left to you: answer it in its terminal',
  )
})
