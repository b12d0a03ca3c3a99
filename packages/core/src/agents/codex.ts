import type { Profile } from './profile.js'

/**
 * Codex CLI. `›` starts its composer line, the prompts echoed above it and a dialog's
 * selected option alike: the composer is the `›` line right above its footer (the
 * model and folder, or the shortcuts hint). Its folder-trust dialog replaces a composer
 * it drew a moment before, hence the settling.
 */
export const CODEX: Profile = {
  name: 'codex',
  tested: '0.171.0',
  gates: [
    {
      name: 'folder trust',
      lines: [/^Trust this folder\? /, /^(› )?1\. Trust and continue$/, /^enter continue · esc back$/],
      cursor: /^› /,
      accept: /^(› )?1\. Trust and continue$/,
    },
    {
      // Before 0.140.
      name: 'folder trust',
      lines: [/^Do you trust the contents of this directory\?/, /^(› )?1\. Yes, continue$/, /^Press enter to continue$/],
      cursor: /^› /,
      accept: /^(› )?1\. Yes, continue$/,
    },
  ],
  composer: /^› .*\n(.* · [~/].*|.*\? for shortcuts)$/m,
  empty: /^› Ask Codex to do anything\n/m,
  busy: /^[•◦] Working \([^\n]*esc to interrupt\)\n› /m,
  composerSettlesMs: 2_000,
}
