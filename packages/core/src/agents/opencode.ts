import type { Profile } from './profile.js'

/** The composer's last line, `Build · <model> <provider>` (the agent, then the model). */
const MODE = String.raw`\S+ · [^\n]+`
/** What follows it to the screen's end: the footer; on the home screen also a tip and the folder. */
const BOTTOM = String.raw`(?:\n[^\n]*){1,3}$`

/**
 * opencode. Its composer is a box: blank rows (rules once frames are stripped) around the
 * text, then the agent and model, then the footer, at the bottom of the screen; prompts
 * echoed in the history are boxes too, and a reply can quote any line, so only the bottom
 * counts. An empty composer shows a placeholder on the home screen only; in a session it
 * is blank rows. A screen wider than 120 columns has a sidebar in a session, sharing the
 * composer's rows: what follows a long run of spaces is cut. While it works the footer is
 * a spinner and `esc interrupt`. It asks nothing at start.
 */
export const OPENCODE: Profile = {
  name: 'opencode',
  tested: '1.18.33',
  gates: [],
  composer: new RegExp(String.raw`(?:^|\n)─\n${MODE}${BOTTOM}`),
  // Its rows all blank, or the home screen's placeholder between them.
  empty: new RegExp(String.raw`(?:^|\n)─\n(?:─|Ask anything… "[^"\n]*")\n─\n${MODE}${BOTTOM}`),
  busy: new RegExp(String.raw`(?:^|\n)${MODE}\n[^\n]*\besc (?:again to )?interrupt\b[^\n]*$`),
  aside: /(?<=\S) {8,}\S.*$/,
  pastePlaceholder: /\[Pasted ~(\d+) lines\]/,
  composerSettlesMs: 1_000,
}
