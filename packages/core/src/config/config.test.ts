import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { Config } from './config.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp('/tmp/svc-')
})
afterEach(() => rm(dir, { recursive: true, force: true }))

it('holds pinned settings over config.json, before and after a write, and leaves the file its own values', async () => {
  const path = join(dir, 'config.json')
  await writeFile(path, JSON.stringify({ network: { listen_addr: '127.0.0.1:8443', require_token: false } }))
  const config = await Config.load(path, { 'network.listen_addr': '127.0.0.1:0', 'network.require_token': true })
  expect([config.get('network.listen_addr'), config.get('network.require_token')]).toEqual(['127.0.0.1:0', true])

  const applied: string[] = []
  config.onChange((next) => void applied.push(next['network.listen_addr']))
  const change = await config.set('network.listen_addr', '127.0.0.1:9000')
  expect(change.value).toBe('127.0.0.1:9000')
  expect(JSON.parse(await readFile(path, 'utf8')).network.listen_addr).toBe('127.0.0.1:9000')
  expect([config.get('network.listen_addr'), applied]).toEqual(['127.0.0.1:0', ['127.0.0.1:0']])
  // Unpinned keys still apply in place.
  await config.set('daemon_poll_interval', '500ms')
  expect(config.get('daemon_poll_interval')).toBe(500)
})
