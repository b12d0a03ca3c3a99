import { useEffect, useState } from 'react'
import type { ResponseOf } from '@svc/protocol/browser'
import { api } from '../api'
import { Outcome, useAction } from '../use-action'

type Accounts = ResponseOf<'ListAccounts'>

export function AccountsPage() {
  const [listed, setListed] = useState<Accounts | undefined>()
  const [form, setForm] = useState({ agent: '', name: '' })
  const [login, setLogin] = useState<string | undefined>()
  const { busy, outcome, run } = useAction()
  const reload = () => run(async () => setListed(await api.call('ListAccounts', {})))
  useEffect(() => void reload(), [])
  return (
    <section className="accounts">
      <ul>
        {listed?.accounts.map((account) => (
          <li key={`${account.agent}/${account.name}`}>
            {account.agent} / {account.name}: {account.logged_in ? 'logged in' : 'not logged in'}{' '}
            <button type="button" disabled={busy} onClick={() =>
                void run(async () => {
                  const started = await api.call('AccountLogin', { agent: account.agent, name: account.name })
                  setLogin(started.attach_command)
                })
              }>
              Log in
            </button>
          </li>
        ))}
      </ul>
      {login ? (
        <p>
          The login runs on the daemon's machine; finish it there with <code>{login}</code>
        </p>
      ) : null}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void run(async () => (await api.call('RegisterAccount', form), await reload()))
        }}
      >
        <select value={form.agent} onChange={(event) => setForm({ ...form, agent: event.target.value })} required>
          <option value="">(agent)</option>
          {listed?.agents.map((agent) => (
            <option key={agent}>{agent}</option>
          ))}
        </select>
        <input placeholder="account name" value={form.name} onChange={(event) => setForm({ ...form, name: event.target.value })} required />
        <button type="submit" disabled={busy}>
          Register
        </button>
      </form>
      <Outcome outcome={outcome} />
    </section>
  )
}
