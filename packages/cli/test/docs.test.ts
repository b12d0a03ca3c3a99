import { expect, it } from 'vitest'
import { regenerate } from '../../../scripts/docs.mjs'

// The generated parts of docs/ (config keys, the CLI) as the built code writes them now.
const generated = await regenerate()

it.each(generated.map((doc) => [doc.path, doc] as const))('%s matches the code', (path, { committed, current }) => {
  expect(committed, `${path} is stale: run pnpm run docs`).toBe(current)
})
