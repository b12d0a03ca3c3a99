import { describe, expect, it } from 'vitest'
import { missionBrief, type Mission } from './mission.js'

const mission = (overrides: Partial<Mission> = {}): Mission => ({
  from: 'claude',
  to: 'codex',
  reason: 'usage-limit',
  interrupted: false,
  goal: 'make the parser accept trailing commas',
  branch: 'agent/parser',
  path: '/src/app-parser',
  work: { head_sha: 'b'.repeat(40), base_sha: 'a'.repeat(40), commits: ['bbbbbbb parser: commas'], uncommitted: [' M parser.ts', '?? notes.md'] },
  ...overrides,
})

describe('the mission brief', () => {
  it('says why, the goal, the branch, what is on it, how to review it, and not to start over', () => {
    const lines = missionBrief(mission()).split('\n')
    expect(lines).toEqual([
      'You are continuing work in progress in this repository; another agent started it.',
      'The previous agent, claude, stopped because it hit its usage limit; you are codex.',
      'Goal: make the parser accept trailing commas',
      `Branch: agent/parser in /src/app-parser, at ${'b'.repeat(12)}, started from ${'a'.repeat(12)}.`,
      'Commits since the base (1):',
      '  bbbbbbb parser: commas',
      'Uncommitted files (2):',
      '   M parser.ts',
      '  ?? notes.md',
      'Review the work with:',
      `  git log --stat ${'a'.repeat(12)}..HEAD`,
      `  git diff ${'a'.repeat(12)}..HEAD`,
      '  git status',
      '  git diff',
      'Do not start over: read what is there, then carry the work on from where it stopped.',
    ])
  })

  it('says when nothing is on the branch yet, asks for an unrecorded goal, and caps long lists', () => {
    const commits = Array.from({ length: 45 }, (_, i) => `c${i} change ${i}`)
    const text = missionBrief(mission({ reason: 'handed-over', goal: ' ', work: { ...mission().work, commits, uncommitted: [] } }))
    expect(text).toContain('The user stopped the previous agent, claude, and handed the work over to you, codex.')
    expect(text).toContain('Goal: not recorded; ask the user what the goal is before changing anything.')
    expect(text).toContain('Commits since the base (45):\n  c0 change 0')
    expect(text).toContain('  c39 change 39\n  … and 5 more\n')
    expect(text).not.toContain('c40 change 40')
    expect(text).toContain('Uncommitted files: none')
    expect(text).not.toContain('interrupted')
  })

  it('says the previous agent was interrupted mid-work when it was stopped while running', () => {
    const lines = missionBrief(mission({ reason: 'handed-over', interrupted: true })).split('\n')
    expect(lines.slice(0, 4)).toEqual([
      'You are continuing work in progress in this repository; another agent started it.',
      'The user stopped the previous agent, claude, and handed the work over to you, codex.',
      'It was interrupted mid-work: an edit or a command of its last step may be half done, so check the uncommitted changes before building on them.',
      'Goal: make the parser accept trailing commas',
    ])
    expect(lines.at(-1)).toBe('Do not start over: read what is there, then carry the work on from where it stopped.')
  })
})
