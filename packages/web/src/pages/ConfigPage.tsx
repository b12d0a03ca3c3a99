import { Bot } from 'lucide-react'
import { useEffect, useId, useState } from 'react'
import { CONFIG_TIER_NAMES } from '@svc/protocol/browser'
import { api, type Project } from '../api'
import { AssistantPanel } from '../config/AssistantPanel'
import { ConfigRow } from '../config/ConfigRow'
import { ConfigTier } from '../config/ConfigTier'
import type { ConfigAnswer, Entry } from '../config/entry'
import { FIELD, PRIMARY } from '../config/look'
import { Outcome, useAction } from '../use-action'

/** Why a key cannot be set in the file being edited: config.json holds global keys, a repository's file its own. */
function readOnlyReason(entry: Entry, repoPath: string): string | undefined {
  if (!repoPath && entry.scope === 'repo') return "A repository setting: choose the project above to set it in its .svc/config.json."
  if (repoPath && entry.scope === 'global') return 'Set in config.json only: a repository cannot change it. Choose "All repositories" above.'
  return undefined
}

/**
 * Every config key by tier, with a control per type. It edits config.json, or a chosen
 * project's .svc/config.json; values follow changes made anywhere (the event feed's
 * config.changed), the config assistant's included.
 */
export function ConfigPage() {
  const [projects, setProjects] = useState<Project[]>([])
  const [repoPath, setRepoPath] = useState('')
  const [config, setConfig] = useState<ConfigAnswer | undefined>()
  const [generation, setGeneration] = useState(0)
  const [assistantOpen, setAssistantOpen] = useState(false)
  const loading = useAction()
  const opening = useAction()
  const scopeId = useId()
  const reload = () => setGeneration((count) => count + 1)
  useEffect(() => {
    let current = true
    void loading.run(async () => {
      const answer = await api.call('GetConfig', repoPath ? { repo_path: repoPath } : {})
      if (current) setConfig(answer)
    })
    return () => void (current = false)
  }, [repoPath, generation])
  useEffect(() => void loading.run(async () => setProjects((await api.call('ListProjects', {})).projects)), [])
  // A change made elsewhere (the assistant, the command line, another page) shows here.
  useEffect(
    () =>
      api.events({
        frame: (frame) => {
          if (frame.type === 'config.changed' || frame.type === 'hello') reload()
        },
      }),
    [],
  )
  const openAssistant = () =>
    void opening.run(async () => {
      await api.configAssistant.open()
      setAssistantOpen(true)
    })
  const closeAssistant = () => {
    setAssistantOpen(false)
    reload()
  }
  const entries = config?.entries ?? []
  return (
    <div className={`mx-auto grid w-full gap-6 p-4 ${assistantOpen ? 'max-w-screen-2xl lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]' : 'max-w-6xl'}`}>
      <section className="min-w-0" aria-labelledby="config-heading">
        <div className="mb-4 flex flex-wrap items-center gap-3">
          <h1 id="config-heading" className="m-0 flex-1 text-xl font-semibold">
            Config
          </h1>
          {assistantOpen ? null : (
            <button type="button" className={PRIMARY} disabled={opening.busy} onClick={openAssistant}>
              <Bot aria-hidden className="size-4" /> {opening.busy ? 'Starting the assistant…' : 'Configure with assistant'}
            </button>
          )}
        </div>
        <Outcome outcome={opening.outcome} />
        <div className="mb-4 flex flex-wrap items-center gap-2 text-sm">
          <label htmlFor={scopeId} className="font-medium">
            Settings of
          </label>
          <select id={scopeId} className={FIELD} value={repoPath} onChange={(event) => setRepoPath(event.target.value)}>
            <option value="">All repositories (config.json)</option>
            {projects.map((project) => (
              <option key={project.id} value={project.root}>
                {project.root}
              </option>
            ))}
          </select>
          <span className="text-muted" data-testid="config-file">
            {config ? (config.repo_file ?? config.path) : ''}
          </span>
        </div>
        {config?.repo_trusted === false ? (
          <p className="text-sm text-tone-attention">This repository's config names commands that are not trusted: they run once you trust it (svc projects trust).</p>
        ) : null}
        {(config?.warnings ?? []).map((warning) => (
          <p key={warning} className="text-sm text-tone-attention">
            {warning}
          </p>
        ))}
        <Outcome outcome={loading.outcome} />
        {CONFIG_TIER_NAMES.map((tier) => {
          const inTier = entries.filter((entry) => entry.tier_name === tier)
          return (
            <ConfigTier key={tier} tier={tier} count={inTier.length}>
              {inTier.map((entry) => (
                <ConfigRow key={`${repoPath}:${entry.key}`} entry={entry} repoPath={repoPath || undefined} readOnly={readOnlyReason(entry, repoPath)} saved={reload} />
              ))}
            </ConfigTier>
          )
        })}
      </section>
      {assistantOpen ? (
        <div className="min-w-0 lg:sticky lg:top-2 lg:self-start">
          <AssistantPanel close={closeAssistant} ended={reload} />
        </div>
      ) : null}
    </div>
  )
}
