// `svc agent-server` for the relay bench, as a pinned child (spawnServer): argv is its home
// and workspace; it answers its endpoint `{url, token}` once ready, and stops on SIGTERM.
import { startAgentServer } from '../dist/index.js'

const [home, workspace] = process.argv.slice(2)
process.send(await startAgentServer({ home, workspace, listen: '127.0.0.1:0' }))
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'))
