import { useEffect, useId, useState } from 'react'
import { CONFIG_TIER_NAMES, type ResponseOf } from '@svc/protocol/browser'
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
      // This page edits config.json: repository settings live in each repository's .svc/config.json.
      setEntries(config.entries.filter((entry) => entry.scope !== 'repo'))
      setWarnings(config.warnings ?? [])
    })
  useEffect(() => void reload(), [])
  return (
    <section className="config">
      <h1 className="visually-hidden">Config</h1>
      {warnings.map((warning) => (
        <p key={warning} className="error">
          {warning}
        </p>
      ))}
      <Outcome outcome={outcome} />
      {CONFIG_TIER_NAMES.map((tier) => (
        <ConfigTier key={tier} tier={tier} entries={entries.filter((entry) => entry.tier_name === tier)} saved={() => void reload()} />
      ))}
    </section>
  )
}

const HEADINGS: Record<Entry['tier_name'], string> = { core: 'Core', common: 'Common', advanced: 'Advanced' }

/** The keys of one tier under its heading; advanced keys start folded. */
function ConfigTier({ tier, entries, saved }: { tier: Entry['tier_name']; entries: Entry[]; saved: () => void }) {
  if (entries.length === 0) return null
  return (
    <details className="config-tier" data-tier={tier} open={tier !== 'advanced'}>
      <summary>
        <h2>{HEADINGS[tier]}</h2>
      </summary>
      {entries.map((entry) => (
        <ConfigRow key={entry.key} entry={entry} saved={saved} />
      ))}
    </details>
  )
}

/** One key: its purpose, and an editor whose refusal shows beside it. */
function ConfigRow({ entry, saved }: { entry: Entry; saved: () => void }) {
  const [value, setValue] = useState(entry.value)
  const { busy, outcome, run } = useAction()
  const purposeId = useId()
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
        <input value={value} onChange={(event) => setValue(event.target.value)} aria-describedby={purposeId} />
      </label>
      <p className="purpose" id={purposeId}>
        {entry.purpose}
      </p>
      <button type="submit" disabled={busy || value === entry.value}>
        Save
      </button>
      <Outcome outcome={outcome} />
    </form>
  )
}
