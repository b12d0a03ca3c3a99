import { useEffect, useState } from 'react'
import { loginStreamPath, type ResponseOf } from '@svc/protocol/browser'
import { api } from '../api'
import { TerminalView } from '../components/TerminalView'
import { Outcome, useAction } from '../use-action'

type Accounts = ResponseOf<'ListAccounts'>

export function AccountsPage() {
  const [listed, setListed] = useState<Accounts | undefined>()
  const [form, setForm] = useState({ agent: '', name: '' })
  const [login, setLogin] = useState<{ agent: string; name: string; started: number } | undefined>()
  const { busy, outcome, run } = useAction()
  const reload = () => run(async () => setListed(await api.call('ListAccounts', {})))
  useEffect(() => void reload(), [])
  return (
    <section className="accounts">
      <h1 className="visually-hidden">Accounts</h1>
      <ul>
        {listed?.accounts.map((account) => (
          <li key={`${account.agent}/${account.name}`}>
            {account.agent} / {account.name}: {account.logged_in ? 'logged in' : 'not logged in'}{' '}
            <button type="button" disabled={busy} onClick={() =>
                void run(async () => {
                  await api.call('AccountLogin', { agent: account.agent, name: account.name })
                  setLogin({ agent: account.agent, name: account.name, started: Date.now() })
                })
              }>
              Log in
            </button>
          </li>
        ))}
      </ul>
      {login ? (
        <div className="login" data-testid="login">
          <h2>
            Logging in {login.agent} / {login.name}
          </h2>
          <TerminalView
            key={login.started}
            label={`login terminal of ${login.agent} / ${login.name}`}
            path={(since) => loginStreamPath(login.agent, login.name, since)}
            endedText="the login ended"
            unavailableText="the login is not running (it may have ended already)"
            ended={() => void reload()}
          />
        </div>
      ) : null}
      <form
        onSubmit={(event) => {
          event.preventDefault()
          void run(async () => (await api.call('RegisterAccount', form), await reload()))
        }}
      >
        <select aria-label="agent" value={form.agent} onChange={(event) => setForm({ ...form, agent: event.target.value })} required>
          <option value="">(agent)</option>
          {listed?.agents.map((agent) => (
            <option key={agent}>{agent}</option>
          ))}
        </select>
        <input aria-label="account name" placeholder="account name" value={form.name} onChange={(event) => setForm({ ...form, name: event.target.value })} required />
        <button type="submit" disabled={busy}>
          Register
        </button>
      </form>
      <Outcome outcome={outcome} />
    </section>
  )
}
