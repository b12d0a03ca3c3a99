import type { Profile } from './profile.js'

/**
 * Gemini CLI. It draws on the main screen, so a dialog it answered stays above what
 * follows: a gate counts only as the last thing drawn. Its composer is the `>` line
 * under the rule (and the approval-mode line); a bare composer flashes before its trust
 * dialog, and an Enter within ~40 ms of a paste is taken as part of the paste.
 */
export const GEMINI: Profile = {
  name: 'gemini',
  tested: '0.61.0',
  gates: [
    {
      name: 'folder trust',
      lines: [/^Do you trust (the files in )?this folder\?$/, /^(● )?1\. Trust folder\b/, /^(● )?3\. Don't trust$/],
      cursor: /^● /,
      accept: /^(● )?1\. Trust folder\b/,
    },
  ],
  composer: /^─\n([^>\n][^\n]*\n)?> /m,
  empty: /^> {3}Type your message or @path\/to\/file$/m,
  busy: /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [^\n]*\(esc to cancel, [^\n)]*\)[^\n]*\n─$/m,
  pastePlaceholder: /\[Pasted Text: (\d+) lines\]/,
  composerSettlesMs: 1_500,
  enterDelayMs: 250,
}
