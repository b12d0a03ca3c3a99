import { useEffect, useState } from 'react'
import type { ResponseOf } from '@svc/protocol/browser'
import { api } from '../api'
import { Outcome, useAction } from '../use-action'

type Entry = ResponseOf<'GetConfig'>['entries'][number]

export function ConfigPage() {
  const [entries, setEntries] = useState<Entry[]>([])
  const [warnings, setWarnings] = useState<string[]>([])
  const { outcome, run } = useAction()
  const reload = () =>
    run(async () => {
      const config = await api.call('GetConfig', {})
      setEntries(config.entries)
      setWarnings(config.warnings ?? [])
    })
  useEffect(() => void reload(), [])
  return (
    <section className="config">
      {warnings.map((warning) => (
        <p key={warning} className="error">
          {warning}
        </p>
      ))}
      <Outcome outcome={outcome} />
      {entries.map((entry) => (
        <ConfigRow key={entry.key} entry={entry} saved={() => void reload()} />
      ))}
    </section>
  )
}

/** One key: its purpose, and an editor whose refusal shows beside it. */
function ConfigRow({ entry, saved }: { entry: Entry; saved: () => void }) {
  const [value, setValue] = useState(entry.value)
  const { busy, outcome, run } = useAction()
  useEffect(() => setValue(entry.value), [entry.value])
  return (
    <form
      className="config-row"
      data-key={entry.key}
      onSubmit={(event) => {
        event.preventDefault()
        void run(async () => {
          const result = await api.call('SetConfigValue', { key: entry.key, value })
          saved()
          return result.restart_notice ?? 'saved'
        })
      }}
    >
      <label>
        <code>{entry.key}</code> <small>({entry.type}, default {entry.default || '""'}, applies {entry.applies})</small>
        <input value={value} onChange={(event) => setValue(event.target.value)} />
      </label>
      <p className="purpose">{entry.purpose}</p>
      <button type="submit" disabled={busy || value === entry.value}>
        Save
      </button>
      <Outcome outcome={outcome} />
    </form>
  )
}
