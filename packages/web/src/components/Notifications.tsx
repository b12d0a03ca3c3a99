import { Bell } from 'lucide-react'
import { useEffect, useState } from 'react'
import { fleetStore } from '../fleet-store'
import { Hint } from './Hint'
import { ui } from './ui'

const REASON_WORDS: Record<string, string> = {
  settled: 'finished working',
  'usage-limit': 'reached its usage limit',
  'prompt-not-delivered': 'did not get its prompt',
  'agent-asks': 'asks you something',
}

/** Opt-in browser notifications for sessions that need the user, so a background tab or a phone tells them. */
export function Notifications() {
  const supported = typeof Notification !== 'undefined'
  const [permission, setPermission] = useState(supported ? Notification.permission : 'denied')
  useEffect(() => {
    fleetStore.onAttention((title, reason) => {
      if (supported && Notification.permission === 'granted' && document.visibilityState !== 'visible') {
        new Notification(`svc: ${title} ${REASON_WORDS[reason] ?? reason}`, { tag: `svc-${title}` })
      }
    })
  }, [supported])
  if (!supported || permission !== 'default') return null
  return (
    <Hint text="Notify me when a session needs me">
      <button type="button" className={`${ui.button} max-sm:px-2`} onClick={() => void Notification.requestPermission().then(setPermission)}>
        <Bell aria-hidden className="size-4" />
        <span className="max-sm:sr-only">Notify me</span>
      </button>
    </Hint>
  )
}
