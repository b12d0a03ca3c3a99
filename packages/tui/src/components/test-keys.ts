import { setTimeout as sleep } from 'node:timers/promises'

/** Key sequences as a terminal sends them, for driving components in tests. */
export const KEY = { up: '\u001B[A', down: '\u001B[B', right: '\u001B[C', left: '\u001B[D', enter: '\r', escape: '\u001B', tab: '\t' }

interface Rendered {
  stdin: { write(data: string): void }
  lastFrame(): string | undefined
}

/**
 * Types each chunk as its own read, then waits for the screen to take it in: until the
 * frame changes (at most half a second: some keys change nothing), and a moment more
 * for the handlers of what it now shows to listen.
 */
export async function type(app: Rendered, ...chunks: string[]): Promise<void> {
  for (const chunk of chunks) {
    const before = app.lastFrame()
    app.stdin.write(chunk)
    for (let waited = 0; waited < 500 && app.lastFrame() === before; waited += 10) await sleep(10)
    await sleep(30)
  }
}
