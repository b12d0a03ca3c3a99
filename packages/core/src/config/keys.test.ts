import { expect, it } from 'vitest'
import { CONFIG_KEYS, CONFIG_KEY_NAMES } from './keys.js'

// A purpose is what `svc config get` tells a person the key does: no purpose may promise
// a surface that does not exist.
it('promises no surface that does not exist', () => {
  for (const name of CONFIG_KEY_NAMES) expect(CONFIG_KEYS[name].purpose, name).not.toMatch(/post-worktree|remote_hooks|account/i)
})
