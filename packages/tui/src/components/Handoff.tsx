import type { Client } from '@svc/protocol'
import type { HandoffRequest } from '../refusal.js'
import type { Session } from '../state/types.js'
import { Form } from './Form.js'
import { useLoaded } from './use-loaded.js'
import { Waiting } from './Waiting.js'

export interface HandoffProps {
  client: Client
  session: Session
  onSubmit: (request: HandoffRequest) => void
  onCancel: () => void
}

/** `h`: the agent (and/or account) to continue the session's work, and what to tell it. */
export function Handoff({ client, session, onSubmit, onCancel }: HandoffProps) {
  const loaded = useLoaded(() => client.call('ListPrograms', { repo_path: session.repo_path }))
  if (loaded === undefined || 'error' in loaded) return <Waiting error={loaded?.error} onCancel={onCancel} />
  const others = loaded.value.programs.map((program) => program.name).filter((name) => name !== session.program)
  return (
    <Form
      title={`Hand ${session.title} off`}
      fields={[
        { name: 'to', label: 'to', kind: 'choice', choices: ['', ...others] },
        { name: 'account', label: 'account', kind: 'text', placeholder: '(unchanged)' },
        { name: 'brief', label: 'brief', kind: 'text', placeholder: "(the session's first prompt)" },
      ]}
      initial={{ to: others[0] ?? '', account: '', brief: '' }}
      hint="the new agent continues on the same branch; an empty 'to' keeps the agent and changes the account"
      onSubmit={(values) => onSubmit({ id: session.id, to: values.to ?? '', account: values.account ?? '', brief: values.brief ?? '' })}
      onCancel={onCancel}
    />
  )
}
