// The CreateSession floor: `git worktree add` then `tmux new-session`, run directly.
// It runs as a pinned child (spawnServer) so its git and tmux processes share the
// daemon's CPU, and times each run itself: the parent sends one message per run.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

process.on('message', async ({ repo, path, branch, tmuxSocket, name, command }) => {
  try {
    const start = process.hrtime.bigint()
    await run('git', ['worktree', 'add', '-b', branch, path, 'HEAD'], { cwd: repo })
    await run('tmux', ['-S', tmuxSocket, 'new-session', '-d', '-s', name, '-c', path, '-x', '200', '-y', '50', '--', ...command])
    process.send({ ms: Number(process.hrtime.bigint() - start) / 1e6 })
  } catch (error) {
    process.send({ error: error.message })
  }
})
process.send('ready')
