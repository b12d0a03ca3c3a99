import type { ChildProcess } from 'node:child_process'
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import { afterEach, expect, it } from 'vitest'
import { cleanup, send } from './harness.js'
import { alive } from './wait.js'
import { ipText, makeNetns, makePlace, netnsAvailable, placeLabel, type Netns, type Place } from './netns.js'

// A server that answers `from <where>` and prints its port once listening.
const SERVER = `require('node:http').createServer((_, res) => res.end('from ' + process.argv[2]))
  .listen(Number(process.argv[3]), process.argv[1], function () { console.log(this.address().port) })`

const made: Place[] = []
afterEach(async () => {
  await Promise.all(made.splice(0).map((place) => place.remove()))
})

async function serve(place: Place, host: string, where: string, port = 0): Promise<{ child: ChildProcess; port: number }> {
  const child = place.spawn(process.execPath, ['-e', SERVER, host, where, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = (await once(child.stdout!, 'data')) as [Buffer]
  return { child, port: Number(line.toString()) }
}

const hostState = () => ({ namespaces: ipText('netns', 'list'), links: ipText('-o', 'link', 'show') })

it(`serves from its place to the host at its address (${placeLabel()})`, async () => {
  const place = await makePlace()
  made.push(place)
  console.log(`the remote side runs ${place.label}`)
  const { port } = await serve(place, place.address, 'inside')
  const reply = await send({ host: place.address, port }, 'GET', '/')
  expect(reply.text).toBe('from inside')
})

it.runIf(netnsAvailable())('isolates: the namespace has a loopback of its own, and its own end of a /30 with the host', async () => {
  const netns = await makeNetns()
  made.push(netns)
  expect(netns.name).toMatch(/^svc-[0-9a-f]{8}$/)
  const [hostEnd, nsEnd] = [netns.hostAddress, netns.address].map((address) => address.split('.').map(Number))
  expect(hostEnd!.slice(0, 3)).toEqual(nsEnd!.slice(0, 3))
  expect([hostEnd![3]! % 4, nsEnd![3]! % 4]).toEqual([1, 2])

  // The host's own server holds 127.0.0.1:<port>; the namespace can take the same port on
  // its loopback, and the host's 127.0.0.1 still reaches only the host's server.
  const host: Server = createServer((_, res) => res.end('from the host'))
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve))
  try {
    const port = (host.address() as { port: number }).port
    await serve(netns, '127.0.0.1', 'inside', port)
    expect((await send({ host: '127.0.0.1', port }, 'GET', '/')).text).toBe('from the host')
    const fromInside = netns.spawn(process.execPath, ['-e', `fetch('http://127.0.0.1:${port}/').then((r) => r.text()).then(console.log)`], { stdio: ['ignore', 'pipe', 'inherit'] })
    expect(String(((await once(fromInside.stdout!, 'data')) as [Buffer])[0]).trim()).toBe('from inside')
    // Nor is the namespace's loopback server at its veth address.
    await expect(send({ host: netns.address, port }, 'GET', '/')).rejects.toMatchObject({ code: 'ECONNREFUSED' })
  } finally {
    host.close()
  }
})

it.runIf(netnsAvailable())('remove() kills what runs inside and leaves no namespace or veth; again is a no-op; cleanup() takes down leftovers', async () => {
  const netns: Netns = await makeNetns()
  const { child } = await serve(netns, netns.address, 'inside')
  // A grandchild, which the kit did not start itself.
  const grandchild = netns.spawn('sh', ['-c', 'sleep 600 & echo $!'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const grandchildPid = Number(String(((await once(grandchild.stdout!, 'data')) as [Buffer])[0]))
  expect(hostState().namespaces).toContain(netns.name)
  expect(hostState().links).toContain(netns.hostInterface)

  const exited = once(child, 'exit')
  await netns.remove()
  await exited
  expect(alive(grandchildPid)).toBe(false)
  expect(hostState().namespaces).not.toContain(netns.name)
  expect(hostState().links).not.toContain(netns.hostInterface)
  await netns.remove()

  const leftover = await makeNetns()
  await cleanup()
  expect(hostState().namespaces).not.toContain(leftover.name)
  expect(hostState().links).not.toContain(leftover.hostInterface)
})

it.skipIf(netnsAvailable())('says, where no namespace can be made, that the remote side runs on loopback', async () => {
  const place = await makePlace()
  made.push(place)
  expect(place.label).toBe('on loopback (this machine cannot make a network namespace)')
  expect(place.address).toBe('127.0.0.1')
  const sleeper = place.spawn('sleep', ['600'])
  const exited = once(sleeper, 'exit')
  await place.remove()
  await exited
})
