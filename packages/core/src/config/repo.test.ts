import { expect, it } from 'vitest'
import { parseRepoConfig, sha256Of } from './repo.js'

const parse = (content: unknown) => parseRepoConfig(JSON.stringify(content), '/repo/.svc/config.json')

it('names the commands a repository config would run, and only those', () => {
  expect(parse({ backend: 'local', default_program: ' codex ' }).commands).toEqual([])
  expect(parse({ default_program: 'codex --yolo' }).commands).toEqual(['codex --yolo'])
  expect(parse({ default_program: 'constructor' }).commands).toEqual(['constructor'])
  expect(
    parse({
      program_overrides: { claude: 'claude --dangerously-skip-permissions' },
      remote_hooks: { launch_cmd: './launch', delete_cmd: './delete', provision_cmd: '' },
    }).commands,
  ).toEqual(['claude --dangerously-skip-permissions', './launch', './delete'])
})

it('hashes the exact bytes, so any edit needs trusting again', () => {
  const text = '{"default_program": "codex --yolo"}'
  const document = parseRepoConfig(text, '/repo/.svc/config.json')
  expect(document.sha256).toBe(sha256Of(text))
  expect(parseRepoConfig(`${text}\n`, '/repo/.svc/config.json').sha256).not.toBe(document.sha256)
})

it('refuses dotted names written flat, and a hook group that is not an object', () => {
  expect(() => parse({ 'program_overrides.claude': 'x' })).toThrow('key "program_overrides.claude": dotted names are written as nested objects')
  expect(() => parse({ remote_hooks: 'x' })).toThrow('key "remote_hooks": unknown key')
  expect(() => parse([])).toThrow('must hold a JSON object')
})
