import { afterEach, expect, it } from 'vitest'
import { Launcher } from './launcher.js'

const launchers: Launcher[] = []
afterEach(() => launchers.splice(0).forEach((launcher) => launcher.close()))
const launcher = () => {
  const made = new Launcher({ PATH: process.env.PATH })
  launchers.push(made)
  return made
}

it('runs each program with its arguments as given, and returns its output, errors and status', async () => {
  const shell = launcher()
  expect(await shell.run(['printf', '%s|', "it's", 'two words', '$HOME', '\u0001'])).toEqual({
    code: 0,
    stdout: "it's|two words|$HOME|\u0001|",
    stderr: '',
  })
  expect(await shell.run(['sh', '-c', 'echo out; echo err >&2; exit 3'])).toEqual({ code: 3, stdout: 'out\n', stderr: 'err\n' })
})

it('runs one program at a time, and replaces a shell that died', async () => {
  const shell = launcher()
  const both = await Promise.all([shell.run(['sh', '-c', 'sleep 0.2; echo first']), shell.run(['echo', 'second'])])
  expect(both.map((launched) => launched.stdout)).toEqual(['first\n', 'second\n'])
  await expect(shell.run(['sh', '-c', 'kill -9 $PPID; sleep 1'])).rejects.toThrow(/launcher shell exited/)
  expect((await shell.run(['echo', 'again'])).stdout).toBe('again\n')
})
