import { Lock } from 'lucide-react'
import { useId, useState } from 'react'
import { api } from '../api'
import { Outcome, useAction } from '../use-action'
import { ConfigControl, savesAtOnce } from './ConfigControl'
import { draftOf, textOf } from './draft'
import type { Entry } from './entry'
import { PRIMARY } from './look'

const SOURCE_WORDS: Record<Entry['source'], string> = { default: 'default', global: 'set in config.json', repo: "set in the repository's .svc/config.json" }
const APPLIES_WORDS: Record<Entry['applies'], string> = { now: 'applies at once', 'next-start': 'applies at the next daemon start' }

interface RowProps {
  entry: Entry
  /** The repository whose .svc/config.json is edited; none for config.json. */
  repoPath: string | undefined
  /** Why this key cannot be edited here, when it cannot. */
  readOnly: string | undefined
  saved: () => void
}

/** One key: its purpose, where its value comes from, and its control, with the daemon's refusal beside it. */
export function ConfigRow({ entry, repoPath, readOnly, saved }: RowProps) {
  // `base` is the stored value the draft started from. A new value from the page's reload
  // starts the draft over, unless it is the echo of this row's own save (the user may be
  // typing again by then).
  const [base, setBase] = useState(entry.value)
  const [seen, setSeen] = useState(entry.value)
  const [draft, setDraft] = useState(() => draftOf(entry.type, entry.value))
  const restart = (value: string) => (setBase(value), setDraft(draftOf(entry.type, value)))
  if (entry.value !== seen) {
    setSeen(entry.value)
    if (entry.value !== base) restart(entry.value)
  }
  const { busy, outcome, run } = useAction()
  const id = useId()
  const ids = { control: `${id}control`, label: `${id}label`, purpose: `${id}purpose`, refusal: `${id}refusal` }
  const refusal = outcome && !outcome.ok ? outcome.text : undefined
  const describedBy = refusal ? `${ids.purpose} ${ids.refusal}` : ids.purpose
  const save = (value: string) =>
    void run(async () => {
      try {
        const result = await api.call('SetConfigValue', { key: entry.key, value, ...(repoPath ? { repo_path: repoPath } : {}) })
        // The daemon's own spelling of what it stored (a duration of 60s reads 1m).
        restart(result.value)
        saved()
        return [`${entry.key} saved`, result.restart_notice, ...(result.warnings ?? [])].filter(Boolean).join('; ')
      } catch (error) {
        // A switch or a select shows the value in force again, not the one refused.
        if (savesAtOnce(entry)) restart(base)
        throw error
      }
    })
  const changed = textOf(draft) !== base
  return (
    <form
      className="grid gap-x-6 gap-y-2 border-b border-line py-3 md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]"
      data-key={entry.key}
      data-source={entry.source}
      onSubmit={(event) => {
        event.preventDefault()
        if (!readOnly && changed) save(textOf(draft))
      }}
    >
      <div className="min-w-0">
        <label id={ids.label} htmlFor={draft.kind === 'text' ? ids.control : undefined} className="font-mono text-sm font-semibold break-all text-fg">
          {entry.key}
        </label>
        <p id={ids.purpose} className="my-1 text-sm text-muted">
          {entry.purpose}
        </p>
        <p className="m-0 flex flex-wrap gap-x-2 text-xs text-muted">
          <span data-testid="source" className={entry.source === 'default' ? '' : 'font-semibold text-fg'}>
            {SOURCE_WORDS[entry.source]}
          </span>
          <span>{entry.type}</span>
          <span>
            default <code>{entry.default || '""'}</code>
          </span>
          <span>{APPLIES_WORDS[entry.applies]}</span>
        </p>
      </div>
      <div className="flex min-w-0 flex-col items-start gap-2">
        {readOnly ? (
          <>
            <code className="rounded bg-surface px-2 py-1 text-sm break-all" aria-describedby={ids.purpose}>
              {entry.value || '""'}
            </code>
            <p className="m-0 flex items-center gap-1 text-sm text-muted">
              <Lock aria-hidden className="size-4 shrink-0" /> {readOnly}
            </p>
          </>
        ) : (
          <>
            <div className="flex w-full flex-wrap items-start gap-2">
              <div className="min-w-0 flex-1">
                <ConfigControl
                  entry={entry}
                  draft={draft}
                  id={ids.control}
                  labelId={ids.label}
                  describedBy={describedBy}
                  invalid={refusal !== undefined}
                  busy={busy}
                  change={setDraft}
                  commit={save}
                />
              </div>
              {savesAtOnce(entry) ? null : (
                <button type="submit" className={PRIMARY} disabled={busy || !changed}>
                  Save
                </button>
              )}
            </div>
            {refusal ? (
              <p id={ids.refusal} role="alert" className="m-0 text-sm text-danger" data-testid="refusal">
                {refusal}
              </p>
            ) : (
              <Outcome outcome={outcome} />
            )}
          </>
        )}
      </div>
    </form>
  )
}
