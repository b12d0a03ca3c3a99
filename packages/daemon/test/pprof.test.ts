import { readFile } from 'node:fs/promises'
import { afterAll, describe, expect, it } from 'vitest'
import { send, startDaemon, tempHomes } from '@svc/test-kit'

const homes = tempHomes()
afterAll(homes.release)

const unknown = (path: string) => ({ data: null, error: { message: `unknown route "${path}"`, daemon_rejected: true } })

describe('GET /v1/debug/pprof/{profile}', () => {
  it('is an unknown route while debug.profiling is off, and serves profiles on the socket once it is on', async () => {
    const daemon = await startDaemon({ config: { network: { listen_addr: '127.0.0.1:0' } } })
    homes.keep(daemon.home)
    const off = await send(daemon.socket, 'GET', '/v1/debug/pprof/heap')
    expect({ status: off.status, json: off.json }).toEqual({ status: 404, json: unknown('/v1/debug/pprof/heap') })

    await daemon.client.call('SetConfigValue', { key: 'debug.profiling', value: 'true' })
    const heap = await send(daemon.socket, 'GET', '/v1/debug/pprof/heap')
    expect(heap.status).toBe(200)
    expect(heap.headers['content-disposition']).toBe('attachment; filename="daemon.heapsnapshot"')
    expect(heap.json.snapshot.node_count).toBeGreaterThan(1000)
    const [cpu, sampled] = await Promise.all([
      send(daemon.socket, 'GET', '/v1/debug/pprof/cpu?seconds=1'),
      send(daemon.socket, 'GET', '/v1/debug/pprof/heap-sampling?seconds=1'),
    ])
    expect(cpu.json.nodes.length).toBeGreaterThan(0)
    expect(cpu.json.endTime - cpu.json.startTime).toBeGreaterThanOrEqual(1_000_000)
    expect(sampled.json.head.children).toBeDefined()
    expect((await send(daemon.socket, 'GET', '/v1/debug/pprof/cpu?seconds=61')).json.error.message).toBe('seconds must be a whole number from 1 to 60')
    expect((await send(daemon.socket, 'GET', '/v1/debug/pprof/goroutine')).status).toBe(404)

    // The TCP listener never serves it, token or not.
    const addr = (await daemon.client.call('Health')).listeners.tcp_bound_addr
    const tcp = { host: '127.0.0.1', port: Number(addr.slice(addr.lastIndexOf(':') + 1)) }
    const token = (await readFile(daemon.paths.token, 'utf8')).trim()
    const remote = await send(tcp, 'GET', '/v1/debug/pprof/heap', { headers: { authorization: `Bearer ${token}` } })
    expect({ status: remote.status, json: remote.json }).toEqual({ status: 404, json: unknown('/v1/debug/pprof/heap') })
  })
})
