import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import { Text } from 'ink'
import { render } from 'ink-testing-library'
import { Confirm } from './Confirm.js'
import { KeyRoot } from './KeyRoot.js'
import { type } from './test-keys.js'

/** A screen whose `K` opens a question, answered by one key. */
function Asking({ heard, answers }: { heard: string[]; answers: boolean[] }) {
  const [asking, setAsking] = useState(false)
  const main = (input: string) => (input === 'K' ? setAsking(true) : heard.push(input))
  return (
    <KeyRoot main={main}>
      {asking ? (
        <Confirm
          question="Kill otter?"
          detail=""
          onAnswer={(yes) => {
            answers.push(yes)
            setAsking(false)
          }}
        />
      ) : (
        <Text>the list</Text>
      )}
    </KeyRoot>
  )
}

describe('KeyRoot', () => {
  it('gives a dialog the key pressed the moment it shows, and that key only to it', async () => {
    const heard: string[] = []
    const answers: boolean[] = []
    const app = render(<Asking heard={heard} answers={answers} />)
    const drawn = async (text: string) => {
      for (let tries = 0; !app.lastFrame()?.includes(text) && tries < 500; tries++) await new Promise((resolve) => setImmediate(resolve))
    }
    app.stdin.write('K')
    await drawn('Kill otter?')
    // At once, without waiting for anything more: the dialog listens from when it is drawn.
    app.stdin.write('y')
    await drawn('the list')
    await type(app, 'j')
    expect([answers, heard]).toEqual([[true], ['j']])
  })
})
