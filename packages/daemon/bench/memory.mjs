// A daemon's memory seen from outside: its RSS, and its heap after a full garbage
// collection run through the inspector (no hook in the daemon itself). Shared by the
// soak and the idle fleet in `pnpm bench`, and the memory test.
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import WebSocket from 'ws'

/** Resident set size of `pid`, in MiB. */
export function rssMiB(pid) {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return kib / 1024
}

/**
 * Starts the kernel's count of the peak RSS of `pid` (VmHWM) over from its RSS now; Linux
 * resets it on a write of 5 to clear_refs. Sampling RSS now and then would miss a peak
 * between samples.
 */
export function resetPeakRss(pid) {
  writeFileSync(`/proc/${pid}/clear_refs`, '5')
}

/** The peak RSS of `pid` since `resetPeakRss`, in MiB. */
export function peakRssMiB(pid) {
  const kib = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1])
  return kib / 1024
}

/** A free loopback port, and the NODE_OPTIONS that open the daemon's inspector on it. */
export async function inspectorOptions() {
  const port = await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
  return { port, env: { NODE_OPTIONS: `--inspect=127.0.0.1:${port}` } }
}

/** Runs a full GC in the process whose inspector listens on `port`; resolves with its heap in use, in MiB. */
export async function heapAfterGc(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()
  const socket = new WebSocket(target.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  let id = 0
  const call = (method) =>
    new Promise((resolve) => {
      const mine = ++id
      const onMessage = (data) => {
        const message = JSON.parse(String(data))
        if (message.id !== mine) return
        socket.off('message', onMessage)
        resolve(message.result)
      }
      socket.on('message', onMessage)
      socket.send(JSON.stringify({ id: mine, method }))
    })
  try {
    await call('HeapProfiler.collectGarbage')
    const { usedSize } = await call('Runtime.getHeapUsage')
    return usedSize / 1024 / 1024
  } finally {
    socket.close()
  }
}
