import { describe, expect, it } from 'vitest'
import { runHook } from './hook-command.js'

/** Runs a command that exits at once, its background child writing to the stdout it inherited `after` seconds later (as ssh's master does for its exited client). */
const lateWrite = (after: number, drainMs?: number) =>
  runHook(['sh', '-c', `(sleep ${after}; echo late) & exit 0`], '/', process.env, 10_000, drainMs === undefined ? {} : { drainMs })

describe('runHook', () => {
  it('leaves a background child holding stdout after a short drain, and waits for it when the run allows longer', async () => {
    expect(await lateWrite(1)).toMatchObject({ code: 0, stdout: '' })
    expect(await lateWrite(1, 5_000)).toMatchObject({ code: 0, stdout: 'late\n' })
  })

  it('reads output already in the pipe when its loop was too busy to read it before the drain ran out', async () => {
    const settled = lateWrite(0.2, 300)
    // Blocks the loop from just after the exit until well after the late write, past the poll
    // phase (in the check phase): the drain's timer is then due before the pipe is read again.
    await new Promise<void>((resolve) =>
      setTimeout(
        () =>
          setImmediate(() => {
            const until = Date.now() + 1_500
            while (Date.now() < until);
            resolve()
          }),
        50,
      ),
    )
    expect(await settled).toMatchObject({ code: 0, stdout: 'late\n' })
  })
})
