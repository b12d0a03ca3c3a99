import { expect, it } from 'vitest'
import { CONFIG_KEYS, CONFIG_KEY_NAMES, RESERVED } from './keys.js'

// A purpose is what `svc config get` tells a person the key does: keys this version only
// stores must say so, and no purpose may promise a surface that does not exist. The
// provision_cmd is stored (and trusted) ahead of the ssh provisioning that runs it.
it('says plainly which keys are stored but not acted on', () => {
  const reserved = CONFIG_KEY_NAMES.filter((name) => CONFIG_KEYS[name].purpose.startsWith(RESERVED))
  expect(reserved).toEqual(['remote_hooks.provision_cmd'])
  for (const name of CONFIG_KEY_NAMES) expect(CONFIG_KEYS[name].purpose, name).not.toMatch(/post-worktree|remote_hooks|account/i)
})
