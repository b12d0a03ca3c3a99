import { Plus, Trash2 } from 'lucide-react'
import { Switch } from 'radix-ui'
import type { Entry } from './entry'
import { DURATION_UNITS, durationParts, durationText, type Draft, type DurationUnit } from './draft'
import { BUTTON, FIELD } from './look'

export interface ControlProps {
  entry: Entry
  draft: Draft
  /** The id the key's label names, and the ids that describe the field (purpose, refusal). */
  id: string
  labelId: string
  describedBy: string
  /** The daemon refused the last value. */
  invalid: boolean
  busy: boolean
  change: (draft: Draft) => void
  /** Saves at once: a switch or a select is its own confirmation. */
  commit: (text: string) => void
}

/** Whether a key's control saves as it changes (no Save button). */
export function savesAtOnce(entry: Entry): boolean {
  return entry.type === 'bool' || entry.enum !== undefined
}

/** The control for a key's type: a switch, a select of its words, a number, a duration, a list or a map editor, or text. */
export function ConfigControl(props: ControlProps) {
  const { entry, draft, id, describedBy, invalid, busy, change, commit } = props
  const aria = { 'aria-describedby': describedBy, 'aria-invalid': invalid || undefined }
  if (draft.kind === 'list') return <ListEditor {...props} items={draft.items} />
  if (draft.kind === 'map') return <MapEditor {...props} rows={draft.rows} />
  const text = draft.text
  const set = (next: string) => change({ kind: 'text', text: next })
  if (entry.type === 'bool') {
    return (
      <Switch.Root
        id={id}
        {...aria}
        checked={text === 'true'}
        disabled={busy}
        onCheckedChange={(on) => (set(String(on)), commit(String(on)))}
        className="relative inline-flex h-6 w-11 shrink-0 items-center rounded-full border border-line bg-surface transition-colors data-[state=checked]:border-accent data-[state=checked]:bg-accent disabled:opacity-60"
      >
        <Switch.Thumb className="block size-4 translate-x-1 rounded-full bg-muted shadow transition-transform data-[state=checked]:translate-x-6 data-[state=checked]:bg-on-accent" />
      </Switch.Root>
    )
  }
  if (entry.enum) {
    return (
      <select id={id} {...aria} className={FIELD} value={text} disabled={busy} onChange={(event) => (set(event.target.value), commit(event.target.value))}>
        {entry.enum.map((word) => (
          <option key={word} value={word}>
            {word}
          </option>
        ))}
      </select>
    )
  }
  if (entry.type === 'int') {
    return <input id={id} {...aria} className={`${FIELD} w-32`} type="number" inputMode="numeric" step={1} value={text} onChange={(event) => set(event.target.value)} />
  }
  if (entry.type === 'duration') {
    const { amount, unit } = durationParts(text)
    return (
      <span className="inline-flex gap-1">
        <input
          id={id}
          {...aria}
          className={`${FIELD} w-28`}
          type="number"
          inputMode="numeric"
          min={0}
          step={1}
          value={amount}
          onChange={(event) => set(durationText(event.target.value, unit))}
        />
        <select aria-label={`${entry.key} unit`} className={FIELD} value={unit} onChange={(event) => set(durationText(amount, event.target.value as DurationUnit))}>
          {Object.entries(DURATION_UNITS).map(([value, words]) => (
            <option key={value} value={value}>
              {words}
            </option>
          ))}
        </select>
      </span>
    )
  }
  return (
    <input
      id={id}
      {...aria}
      className={`${FIELD} w-full`}
      value={text}
      placeholder={entry.type === 'address' ? 'host:port, or empty for off' : undefined}
      onChange={(event) => set(event.target.value)}
    />
  )
}

/** One row per item, each removable, and a row to add. */
function ListEditor({ entry, labelId, describedBy, invalid, change, items }: ControlProps & { items: string[] }) {
  const set = (next: string[]) => change({ kind: 'list', items: next })
  const noun = entry.type === 'env-names' ? 'variable name' : 'item'
  return (
    <div role="group" aria-labelledby={labelId} aria-describedby={describedBy} className="flex flex-col gap-1">
      {items.map((item, index) => (
        <span key={index} className="flex gap-1">
          <input
            aria-label={`${entry.key} ${noun} ${index + 1}`}
            aria-invalid={invalid || undefined}
            className={`${FIELD} flex-1 font-mono`}
            value={item}
            onChange={(event) => set(items.map((each, at) => (at === index ? event.target.value : each)))}
          />
          <button type="button" className={BUTTON} aria-label={`remove ${entry.key} ${noun} ${index + 1}`} onClick={() => set(items.filter((_, at) => at !== index))}>
            <Trash2 aria-hidden className="size-4" />
          </button>
        </span>
      ))}
      {items.length === 0 ? <span className="text-sm text-muted">none</span> : null}
      <button type="button" className={`${BUTTON} self-start`} onClick={() => set([...items, ''])}>
        <Plus aria-hidden className="size-4" /> Add {noun}
      </button>
    </div>
  )
}

/** One row per entry (name and value), each removable, and a row to add. */
function MapEditor({ entry, labelId, describedBy, invalid, change, rows }: ControlProps & { rows: Array<[string, string]> }) {
  const set = (next: Array<[string, string]>) => change({ kind: 'map', rows: next })
  const edit = (index: number, at: 0 | 1, text: string) =>
    set(rows.map((row, each) => (each === index ? (at === 0 ? [text, row[1]] : [row[0], text]) : row)))
  return (
    <div role="group" aria-labelledby={labelId} aria-describedby={describedBy} className="flex flex-col gap-1">
      {rows.map(([name, value], index) => (
        <span key={index} className="grid grid-cols-[minmax(0,2fr)_minmax(0,5fr)_auto] gap-1">
          <input
            aria-label={`${entry.key} name ${index + 1}`}
            aria-invalid={invalid || undefined}
            className={`${FIELD} font-mono`}
            placeholder="name"
            value={name}
            onChange={(event) => edit(index, 0, event.target.value)}
          />
          <input
            aria-label={`${entry.key} value ${index + 1}`}
            aria-invalid={invalid || undefined}
            className={`${FIELD} font-mono`}
            placeholder="value"
            value={value}
            onChange={(event) => edit(index, 1, event.target.value)}
          />
          <button type="button" className={BUTTON} aria-label={`remove ${entry.key} entry ${index + 1}`} onClick={() => set(rows.filter((_, at) => at !== index))}>
            <Trash2 aria-hidden className="size-4" />
          </button>
        </span>
      ))}
      {rows.length === 0 ? <span className="text-sm text-muted">none</span> : null}
      <button type="button" className={`${BUTTON} self-start`} onClick={() => set([...rows, ['', '']])}>
        <Plus aria-hidden className="size-4" /> Add entry
      </button>
    </div>
  )
}
