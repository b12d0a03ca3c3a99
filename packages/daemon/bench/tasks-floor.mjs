// Floors of the tasks bench, run as a pinned child (startFloor) on the daemon's CPU, one
// job per message: the store's locked, fsync'd whole-file write with no HTTP or validation;
// bare timers due at one instant; a watch command's lines read straight from its pipe.
import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { withFileLock, writeFileDurable } from '@svc/core'

const floors = {
  /**
   * `writers` concurrent writers, each appending `task` to the store at `path` under its
   * lock, for `seconds`: the whole-file write every mutation cost before the journal.
   * `stored` is the file to start from (empty when not given).
   */
  async store({ path, task, writers, seconds, stored }) {
    await writeFile(path, stored ?? JSON.stringify({ store_generation: 0, tasks: [], runs: [] }))
    const end = Date.now() + seconds * 1000
    let writes = 0
    const writer = async () => {
      while (Date.now() < end) {
        await withFileLock(`${path}.lock`, async () => {
          const doc = JSON.parse(await readFile(path, 'utf8'))
          doc.tasks.push({ ...task, id: `floor${writes}` })
          doc.store_generation++
          await writeFileDurable(path, `${JSON.stringify(doc, null, 2)}\n`)
        })
        writes++
      }
    }
    await Promise.all(Array.from({ length: writers }, writer))
    return { rps: writes / seconds }
  },

  /** `count` timers due at `at` (epoch ms): how late each one ran. */
  async timers({ count, at }) {
    const fired = Array.from({ length: count }, () => new Promise((resolve) => setTimeout(() => resolve(Date.now() - at), at - Date.now())))
    return { late: await Promise.all(fired) }
  },

  /** `lines` lines of `$SHELL -c command` in `dir`: from the instant the command printed one to the instant it was read. */
  async watch({ command, dir, lines }) {
    const shell = spawn(process.env.SHELL || '/bin/sh', ['-c', command], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], detached: true })
    const read = createInterface({ input: shell.stdout })[Symbol.asyncIterator]()
    const times = []
    try {
      for (let n = 0; n < lines; n++) {
        await writeFile(join(dir, 'go'), '')
        await read.next()
        times.push(Date.now() - Number(await readFile(join(dir, 'printed'), 'utf8')))
      }
    } finally {
      process.kill(-shell.pid, 'SIGKILL')
    }
    return { times }
  },
}

process.on('message', async (job) => {
  try {
    process.send(await floors[job.kind](job))
  } catch (error) {
    process.send({ error: error.message })
  }
})
process.send('ready')
