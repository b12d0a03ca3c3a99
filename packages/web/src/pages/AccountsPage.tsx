import { useEffect, useState } from 'react'
import { loginStreamPath, type ResponseOf } from '@svc/protocol/browser'
import { api } from '../api'
import { Terminal } from '../components/Terminal'
import { ui } from '../components/ui'
import { Outcome, useAction } from '../use-action'

type Accounts = ResponseOf<'ListAccounts'>

export function AccountsPage() {
  const [listed, setListed] = useState<Accounts | undefined>()
  const [form, setForm] = useState({ agent: '', name: '' })
  const [login, setLogin] = useState<{ agent: string; name: string; started: number } | undefined>()
  const { busy, outcome, run } = useAction()
  const reload = async () => setListed(await api.call('ListAccounts', {}))
  useEffect(() => void run(reload), [])
  return (
    <section className={ui.page}>
      <h1 className={ui.heading}>Accounts</h1>
      {listed?.accounts.length === 0 ? <p className={ui.empty}>No accounts yet: register one below, then log it in.</p> : null}
      {listed?.accounts.length ? (
        <ul className={`${ui.card} divide-y divide-line`}>
          {listed.accounts.map((account) => (
            <li key={`${account.agent}/${account.name}`} data-account={`${account.agent}/${account.name}`} className="flex flex-wrap items-center gap-2 px-3 py-2 text-sm">
              <span className="min-w-0 flex-1">
                <span className="font-medium">
                  {account.agent} / {account.name}
                </span>
                :{' '}
                <span className={account.logged_in ? 'text-tone-running' : 'text-muted'}>{account.logged_in ? 'logged in' : 'not logged in'}</span>
              </span>
              <button
                type="button"
                className={ui.button}
                disabled={busy}
                onClick={() =>
                  void run(async () => {
                    await api.call('AccountLogin', { agent: account.agent, name: account.name })
                    setLogin({ agent: account.agent, name: account.name, started: Date.now() })
                  })
                }
              >
                Log in
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {login ? (
        <div className="flex h-[28rem] flex-col gap-2" data-testid="login">
          <h2 className="font-semibold">
            Logging in {login.agent} / {login.name}
          </h2>
          <Terminal
            key={login.started}
            label={`login terminal of ${login.agent} / ${login.name}`}
            path={(since) => loginStreamPath(login.agent, login.name, since)}
            endedText="the login ended"
            unavailableText="the login is not running (it may have ended already)"
            ended={() => void run(reload)}
          />
        </div>
      ) : null}
      <form
        aria-label="register an account"
        className="flex flex-wrap items-center gap-2"
        onSubmit={(event) => {
          event.preventDefault()
          void run(async () => (await api.call('RegisterAccount', form), await reload(), `registered ${form.agent} / ${form.name}`))
        }}
      >
        <select aria-label="agent" value={form.agent} onChange={(event) => setForm({ ...form, agent: event.target.value })} required className={ui.field}>
          <option value="">(agent)</option>
          {listed?.agents.map((agent) => (
            <option key={agent}>{agent}</option>
          ))}
        </select>
        <input aria-label="account name" placeholder="account name" value={form.name} onChange={(event) => setForm({ ...form, name: event.target.value })} required className={ui.field} />
        <button type="submit" className={ui.primary} disabled={busy}>
          Register
        </button>
      </form>
      <Outcome outcome={outcome} />
    </section>
  )
}
