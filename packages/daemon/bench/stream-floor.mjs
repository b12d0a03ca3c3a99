// The floor of the stream bench, run as a pinned child (spawnServer) so its `tmux attach`
// client shares the server CPU with tmux, as the daemon's own does: node-pty on `tmux
// attach` read directly. Each job types `text` and answers the milliseconds until
// `marker` came out of the pty.
import { createRequire } from 'node:module'

const { spawn: spawnPty } = createRequire(import.meta.url)('node-pty')
let pty
let watch

function attach(tmuxSocket, target) {
  pty = spawnPty('tmux', ['-S', tmuxSocket, 'attach-session', '-t', `=${target}`], {
    name: 'xterm-256color',
    cols: 200,
    rows: 51,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    encoding: null,
  })
  pty.onData((data) => watch?.(data.toString('latin1')))
}

process.on('message', ({ tmuxSocket, target, text, marker }) => {
  if (pty === undefined) attach(tmuxSocket, target)
  let seen = ''
  const began = process.hrtime.bigint()
  watch = (chunk) => {
    seen = (seen + chunk).slice(-4096)
    if (!seen.includes(marker)) return
    watch = undefined
    process.send({ ms: Number(process.hrtime.bigint() - began) / 1e6 })
  }
  pty.write(text)
})
process.once('disconnect', () => (pty?.kill(), process.exit(0)))
process.send('ready')
