import { describe, expect, it } from 'vitest'
import { render } from 'ink-testing-library'
import { Confirm } from './Confirm.js'
import { Form, type Values } from './Form.js'
import { KeyRoot } from './KeyRoot.js'
import { KEY, type } from './test-keys.js'

const fields = [
  { name: 'title', label: 'title', kind: 'text' },
  { name: 'program', label: 'program', kind: 'choice', choices: ['claude', 'codex', 'aider'] },
  { name: 'prompt', label: 'prompt', kind: 'text' },
] as const

describe('Form', () => {
  it('edits text, cycles choices with the arrows, moves on with enter and submits from the last field', async () => {
    let submitted: Values | undefined
    const app = render(
      <KeyRoot>
        <Form title="New session" fields={fields} initial={{ title: 'otter', program: 'claude', prompt: '' }} onSubmit={(values) => (submitted = values)} onCancel={() => undefined} />
      </KeyRoot>,
    )
    await type(app, '-2', KEY.enter, KEY.right, KEY.right)
    expect(app.lastFrame()).toContain('‹ aider ›')
    await type(app, KEY.left, KEY.enter, 'fix the tests')
    expect(submitted).toBeUndefined()
    await type(app, KEY.enter)
    expect(submitted).toEqual({ title: 'otter-2', program: 'codex', prompt: 'fix the tests' })
  })

  it('cancels on esc without submitting', async () => {
    let cancelled = false
    let submitted = false
    const app = render(
      <KeyRoot>
        <Form title="t" fields={fields} initial={{}} onSubmit={() => (submitted = true)} onCancel={() => (cancelled = true)} />
      </KeyRoot>,
    )
    await type(app, 'abc', KEY.escape)
    expect([cancelled, submitted]).toEqual([true, false])
  })
})

describe('Confirm', () => {
  it('says yes only to y', async () => {
    const answers: boolean[] = []
    const yes = render(
      <KeyRoot>
        <Confirm question="Kill otter?" detail="its worktree is deleted" onAnswer={(answer) => answers.push(answer)} />
      </KeyRoot>,
    )
    expect(yes.lastFrame()).toContain('its worktree is deleted')
    await type(yes, 'y')
    const no = render(
      <KeyRoot>
        <Confirm question="Kill otter?" detail="" onAnswer={(answer) => answers.push(answer)} />
      </KeyRoot>,
    )
    await type(no, KEY.enter)
    expect(answers).toEqual([true, false])
  })
})
