import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { hookCalls, hookConfig, placeLabel, remoteDirs, useHookWorld, waitFor, waitForSession } from '@svc/test-kit'

// Prompts that reach a hook session by title (DeliverPrompt, tasks) go through its
// remote, never the home's tmux.
const world = useHookWorld({ env: { SVC_HOOK_TIMEOUT_MS: '30000' } })
let id: string

beforeAll(async () => {
  const { instance } = await world.daemon.client.call('CreateSession', { repo_path: world.repo, title: 'desk', backend: 'hook' })
  id = instance.id
  await waitForSession(world.daemon, 'desk', (row) => row.liveness_name === 'ready')
})

/** The remote pane as the home previews it, once it shows `text`. */
function remotePaneShows(text: string): Promise<string> {
  return waitFor(async () => {
    const { text: pane } = await world.daemon.client.call('Preview', { id })
    return pane.includes(text) ? pane : undefined
  }, 20_000)
}

describe(`prompts by title to a hook session, its agent server ${placeLabel()}`, () => {
  it('DeliverPrompt answers the remote verdict and the remote pane shows the prompt', async () => {
    const answer = await world.daemon.client.call('DeliverPrompt', { title: 'desk', repo_path: world.repo, prompt: 'delivered by title' })
    expect(answer).toMatchObject({ status: 'sent', delivery: expect.stringMatching(/^(delivered|delivery-unconfirmed)$/) })
    await remotePaneShows('received: delivered by title')
    expect((await world.daemon.client.call('Snapshot', {})).instances.map((row) => row.title)).toEqual(['desk'])
  })

  it('defers while a person holds the terminal (a lease taken through the home), and the remote delivers once it is let go', async () => {
    await waitForSession(world.daemon, 'desk', (row) => row.liveness_name === 'ready')
    await world.daemon.client.call('PauseStatusPoll', { id, holder: 'person' })
    const answer = await world.daemon.client.call('DeliverPrompt', { title: 'desk', repo_path: world.repo, prompt: 'after you leave', defer_while_attached: true })
    expect(answer).toEqual({ status: 'sent', deferred: true })
    expect((await world.daemon.client.call('Preview', { id })).text).not.toContain('after you leave')
    await world.daemon.client.call('ResumeStatusPoll', { id, holder: 'person' })
    await remotePaneShows('received: after you leave')
  })

  it('a task targeting the hook session delivers its prompt through the remote', async () => {
    await waitForSession(world.daemon, 'desk', (row) => row.liveness_name === 'ready')
    await world.daemon.client.call('AddTask', {
      task: { id: 'nudge', cron_expr: '0 0 1 1 *', prompt: 'nudged by a task', project_path: world.repo, target_session: 'desk' },
    })
    await world.daemon.client.call('TriggerTask', { id: 'nudge' })
    const { tasks } = await world.daemon.client.call('ListTasks', {})
    expect(tasks.find((task) => task.id === 'nudge')?.last_run_status).toBe('sent desk')
    await remotePaneShows('received: nudged by a task')
    expect((await world.daemon.client.call('Snapshot', {})).instances).toHaveLength(1)
  })

  it('a task spawning into a repository whose backend is hook runs on a remote, and its on_complete kill applies once the home sees it settle', async () => {
    const config = join(world.repo, '.svc', 'config.json')
    await writeFile(config, JSON.stringify({ ...hookConfig(world.state, world.place), backend: 'hook' }))
    await world.daemon.client.call('TrustProject', { path: world.repo })
    await world.daemon.client.call('AddTask', {
      task: { id: 'once', name: 'once', cron_expr: '0 0 1 1 *', prompt: '/busy 2', project_path: world.repo, on_complete: 'kill' },
    })
    await world.daemon.client.call('TriggerTask', { id: 'once' })
    const spawned = await waitForSession(world.daemon, 'once', (row) => row.backend === 'hook')
    expect(spawned.remote_host).toBe(world.place.address)
    await waitFor(async () => !(await world.daemon.client.call('Snapshot', {})).instances.some((row) => row.title === 'once'), 30_000)
    expect(hookCalls(world.state).at(-1)).toMatchObject({ hook: 'delete', argv: expect.arrayContaining(['--name', 'once']) })
    expect(remoteDirs(world.state)).toEqual(['desk'])
  })

  it('forwards ResumeFromLimit to the remote and refuses a handoff clearly', async () => {
    const resume = await world.daemon.post('/v1/ResumeFromLimit', { id })
    expect(resume.json.error.message).toBe(`the remote agent server at ${world.place.address} answered: session "desk" is not at a usage limit`)
    const handoff = await world.daemon.post('/v1/HandoffSession', { id, to: 'claude' })
    expect(handoff.json.error.message).toBe('handoff of hook sessions is not supported yet')
  })
})
