import { expect, it } from 'vitest'
import WebSocket from 'ws'
import { encodeServerFrame, StreamOpcode } from '@svc/protocol'
import { HIGH_WATER_BYTES, RelayPipe } from './relay-pipe.js'

/** The two sockets a pipe touches, standing in for ws's: the client's buffer as large as told. */
function sockets() {
  const sent: { frame: Buffer; binary: boolean; done?: () => void }[] = []
  const client = {
    readyState: WebSocket.OPEN,
    bufferedAmount: 0,
    send: (frame: Buffer, options: { binary: boolean }, done?: () => void) => sent.push({ frame, binary: options.binary, ...(done ? { done } : {}) }),
  }
  const remote = { paused: false, pause: () => (remote.paused = true), resume: () => (remote.paused = false) }
  const pipe = new RelayPipe(client as unknown as WebSocket, remote as unknown as WebSocket)
  return { sent, client, remote, pipe }
}

const output = (text: string) => Buffer.from(encodeServerFrame({ type: 'output', data: Buffer.from(text) }) as Uint8Array)
const turn = () => new Promise((resolve) => setImmediate(resolve))

it('sends the output frames of one turn as one, every byte in order, and every other frame as it came, in its place', async () => {
  const { sent, pipe } = sockets()
  for (const text of ['ab', 'cd', 'ef']) pipe.push(output(text), true)
  pipe.push(Buffer.from('{"type":"resize","rows":30,"cols":100}'), false)
  pipe.push(output('gh'), true)
  pipe.push(output('ij'), true)
  await turn()
  expect(sent.map(({ frame, binary }) => [frame.toString('latin1'), binary])).toEqual([
    [`${String.fromCharCode(StreamOpcode.output)}abcdef`, true],
    ['{"type":"resize","rows":30,"cols":100}', false],
    [`${String.fromCharCode(StreamOpcode.output)}ghij`, true],
  ])
})

it('stops reading the remote while the client is further behind than the high-water mark, and reads on once it took what was sent', async () => {
  const { sent, client, remote, pipe } = sockets()
  client.bufferedAmount = HIGH_WATER_BYTES - 2
  pipe.push(output('x'), true)
  await turn()
  expect(remote.paused).toBe(false)
  client.bufferedAmount = HIGH_WATER_BYTES
  pipe.push(output('y'), true)
  await turn()
  expect(remote.paused).toBe(true)
  sent.at(-1)?.done?.()
  expect(remote.paused).toBe(false)
})
