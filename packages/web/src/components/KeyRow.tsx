/** Keys a phone keyboard lacks, for driving an agent from a small screen. */
export const KEYS: Array<[string, string]> = [
  ['Esc', '\x1b'],
  ['Tab', '\t'],
  ['Ctrl-C', '\x03'],
  ['←', '\x1b[D'],
  ['↑', '\x1b[A'],
  ['↓', '\x1b[B'],
  ['→', '\x1b[C'],
  ['Enter', '\r'],
]

export function KeyRow({ send }: { send: (keys: string) => void }) {
  return (
    <div className="key-row" role="toolbar" aria-label="terminal keys">
      {KEYS.map(([label, keys]) => (
        <button key={label} type="button" onClick={() => send(keys)}>
          {label}
        </button>
      ))}
    </div>
  )
}
