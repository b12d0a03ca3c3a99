import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { places } from './remote-scripts.js'

/** Where the scripts put the slug's workspace and agent-server home for a user whose HOME is `home`. */
function placed(slug: string, home: string): { ws: string; home: string } {
  const [ws = '', agentHome = ''] = execFileSync('sh', ['-c', `${places(slug)}\nprintf '%s\\n%s\\n' "$ws" "$home"`], { env: { HOME: home, PATH: process.env.PATH }, encoding: 'utf8' }).split('\n')
  return { ws, home: agentHome }
}

describe("a provisioned session's places on its host", () => {
  it('are ~/svc-workspaces/<slug> and <slug>.home while the home socket fits', () => {
    expect(placed('fix-login', '/home/dev')).toEqual({ ws: '/home/dev/svc-workspaces/fix-login', home: '/home/dev/svc-workspaces/fix-login.home' })
  })

  it('keep the workspace but give the agent-server home a short hashed name when a long slug would pass the 107-byte socket limit', () => {
    const slug = 'a'.repeat(120)
    const { ws, home } = placed(slug, '/home/dev')
    expect(ws).toBe(`/home/dev/svc-workspaces/${slug}`)
    expect(home).toMatch(/^\/home\/dev\/svc-workspaces\/h-[0-9a-f]{12}\.home$/)
    expect(placed(slug, '/home/dev').home).toBe(home)
  })
})
