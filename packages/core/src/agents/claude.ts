import type { Profile } from './profile.js'

/**
 * Claude Code. Its composer is the `❯` line (`>` before 2.0; a no-break space after it,
 * where the prompts echoed above it have a plain one) between two rules, its status line under them says
 * `esc to interrupt` while it works. Its dialogs preselect the refusal: the daemon moves
 * to the accepting option. 1.0's boxed trust dialog is read too.
 */
export const CLAUDE: Profile = {
  name: 'claude',
  tested: '2.1.332',
  gates: [
    {
      name: 'folder trust',
      lines: [
        /^(Quick safety check: Is this a project you created or one you trust\?|Do you trust the files in this folder\?$)/,
        /^(❯ )?(1\. )?Yes, (I trust this folder|proceed)$/,
        /^Enter to confirm · Esc to (cancel|exit)$/,
      ],
      cursor: /^❯ /,
      accept: /^(❯ )?(1\. )?Yes, (I trust this folder|proceed)$/,
    },
    {
      name: 'new MCP server',
      lines: [/^New MCP server found in (this project|\.mcp\.json): /, /^(❯ )?(\d\. )?Use this MCP server$/, /^Enter to confirm · Esc to reject/],
      cursor: /^❯ /,
      accept: /^(❯ )?(\d\. )?Use this MCP server$/,
    },
  ],
  composer: /^─\n[❯>](\u00a0[^\n]*)?\n([^─\n][^\n]*\n)*─$/m,
  empty: /^─\n([❯>]|>\u00a0Try "[^\n]*")\n─$/m,
  busy: /^─\n(?!❯)[^\n]*\besc to interrupt\b|\(\d+s · [^\n]*esc to interrupt\)$/m,
  pastePlaceholder: /\[Pasted text #\d+ \+(\d+) lines\]/,
  composerSettlesMs: 1_000,
}
