// Floors of the sessions bench, run as a pinned child (spawnServer) so its git and tmux
// processes share the daemon's CPU; the parent sends one job per message. `create`:
// `git worktree add` then `tmux new-session`, run directly and timed here. `poll`: the
// CPU this bare Node process spends running one fleet-wide `tmux list-panes`, the one
// tmux call a poll tick makes at least.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

const run = promisify(execFile)

const floors = {
  async create({ repo, path, branch, tmuxSocket, name, command }) {
    const start = process.hrtime.bigint()
    await run('git', ['worktree', 'add', '-b', branch, path, 'HEAD'], { cwd: repo })
    await run('tmux', ['-S', tmuxSocket, 'new-session', '-d', '-s', name, '-c', path, '-x', '200', '-y', '50', '--', ...command])
    return { ms: Number(process.hrtime.bigint() - start) / 1e6 }
  },

  async poll({ tmuxSocket, count }) {
    const before = process.cpuUsage()
    for (let i = 0; i < count; i++) await run('tmux', ['-S', tmuxSocket, 'list-panes', '-a', '-F', '#{session_name}\t#{pane_dead}'])
    const used = process.cpuUsage(before)
    return { cpuMs: (used.user + used.system) / 1000 / count }
  },
}

process.on('message', async (job) => {
  try {
    process.send(await floors[job.kind](job))
  } catch (error) {
    process.send({ error: error.message })
  }
})
process.send('ready')
