/** Keys a phone keyboard lacks, for driving an agent from a small screen: shown, the bytes sent, and a name where the glyph is no word. */
export const KEYS: Array<[string, string, string?]> = [
  ['Esc', '\x1b'],
  ['Tab', '\t'],
  ['Ctrl-C', '\x03'],
  ['←', '\x1b[D', 'left arrow'],
  ['↑', '\x1b[A', 'up arrow'],
  ['↓', '\x1b[B', 'down arrow'],
  ['→', '\x1b[C', 'right arrow'],
  ['Enter', '\r'],
]

/** Shown on touch-sized screens (below the desktop's 1024 px), where those keys are missing. */
export function KeyRow({ send }: { send: (keys: string) => void }) {
  return (
    <div className="flex gap-1 lg:hidden" role="toolbar" aria-label="terminal keys">
      {KEYS.map(([label, keys, name]) => (
        <button
          key={label}
          type="button"
          onClick={() => send(keys)}
          aria-label={name}
          className="min-h-10 min-w-0 flex-1 rounded-md border border-line bg-raised px-1 font-mono text-xs text-fg active:bg-surface"
        >
          {label}
        </button>
      ))}
    </div>
  )
}
