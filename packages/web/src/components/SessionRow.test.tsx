// @vitest-environment jsdom
import { cleanup, render } from '@testing-library/react'
import { afterEach, expect, it } from 'vitest'
import type { Session } from '../api'
import { SessionRow } from './SessionRow'

afterEach(cleanup)

const base = {
  id: 's1',
  title: 'fix-parser',
  repo_path: '/r',
  branch: 'agent/fix-parser',
  program: 'claude',
  status_name: 'ready',
  liveness_name: 'ready',
  created_at: '2026-11-24T10:00:00Z',
  last_pane_churn_at: new Date(Date.now() - 4 * 60_000).toISOString(),
} as Session

it('shows the title, state word in its tone, idle reason in words, program, branch and the age of the last pane change, linking to the session', () => {
  const { container, getByText } = render(<SessionRow session={{ ...base, idle_reason: 'prompt-not-delivered' }} attention={undefined} />)
  expect(getByText('fix-parser')).toBeTruthy()
  expect(getByText('ready').className).toContain('text-tone-ready')
  expect(getByText('waiting: prompt not delivered')).toBeTruthy()
  expect(getByText('agent/fix-parser')).toBeTruthy()
  expect(getByText('4m')).toBeTruthy()
  expect(container.querySelector('a')?.getAttribute('href')).toBe('#/session/s1')
  expect(container.querySelector('a')?.hasAttribute('aria-current')).toBe(false)
  expect(container.textContent).not.toContain('needs you')
})

it('badges a session that needs the user, and marks the selected one as current', () => {
  const { getByText, container } = render(<SessionRow session={base} attention="settled" selected />)
  expect(getByText('needs you')).toBeTruthy()
  expect(container.querySelector('a')?.getAttribute('aria-current')).toBe('page')
})

it('says where a hook session runs beside its program, and marks it unreachable while its remote does not answer', () => {
  const remote = { ...base, backend: 'hook', remote_host: '10.0.0.2' }
  const { container, rerender } = render(<SessionRow session={remote} attention={undefined} />)
  expect(container.querySelector('[data-remote]')?.parentElement?.textContent).toBe('claude on 10.0.0.2')
  expect(container.querySelector('[data-remote=unreachable]')).toBeNull()
  rerender(<SessionRow session={{ ...remote, remote_unreachable: true }} attention={undefined} />)
  expect(container.querySelector('[data-remote=unreachable]')?.textContent).toBe(' on 10.0.0.2, unreachable')
})
