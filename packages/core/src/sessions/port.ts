import type { SessionPort } from '../tasks-port.js'
import type { Sessions } from './sessions.js'

/** Sessions as the task engine sees them. */
export function sessionPort(sessions: Sessions): SessionPort {
  return {
    async spawn({ title_base, repo_path, program, prompt }) {
      const record = await sessions.lifecycle.create({ title_base, repo_path, program, prompt })
      return { id: record.id, title: record.title }
    },
    async deliver({ title, repo_path, program, prompt }) {
      return (await sessions.deliverPromptTo({ title, repo_path, program, prompt })).status
    },
    async archive(id) {
      await sessions.runtimeOf({ id }).archive({ id })
    },
    kill: (id) => sessions.runtimeOf({ id }).kill({ id }),
    settled: (id) => sessions.isSettled(id),
    targetState: (title, repoId) => sessions.targetState(title, repoId),
    onSettled: (listener) => sessions.onSettled(listener),
  }
}
