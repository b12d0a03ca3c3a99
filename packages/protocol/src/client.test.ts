import { fork } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createClient } from './client.js'

const dirs: string[] = []
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))))

/**
 * A server in another process (its timers run while this one is busy) closing idle sockets
 * after 3 s; it tells clients so, and Node's agent lets a socket go 1 s before, if its own
 * timers get to run.
 */
const SERVER = `
const server = require('node:http').createServer((_request, response) => response.end(String(++answered)))
let answered = 0
server.keepAliveTimeout = 3000
server.listen(process.argv[2], () => process.send('listening'))
process.on('disconnect', () => process.exit(0))
`

it('sends a request again when the kept-alive socket it was given had been closed by the daemon while idle', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-'))
  dirs.push(dir)
  const socketPath = join(dir, 'api.sock')
  await writeFile(join(dir, 'server.cjs'), SERVER)
  const server = fork(join(dir, 'server.cjs'), [socketPath])
  try {
    await new Promise((resolve) => server.once('message', resolve))
    const client = createClient({ socketPath })
    expect((await client.raw('GET', '/')).text).toBe('1')
    // Blocked, as a caller is in a synchronous call (spawnSync, say): the server closes the
    // idle socket meanwhile, and this process has not seen it yet when the next request takes it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4_000)
    expect((await client.raw('GET', '/')).text).toBe('2')
  } finally {
    server.disconnect()
  }
})
