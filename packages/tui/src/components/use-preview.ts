import { useEffect, useState } from 'react'
import type { Client } from '@svc/protocol'
import type { Session } from '../state/types.js'

/**
 * The selected session's agent screen, read with `Preview` when the selection changes
 * and again each time its pane changes (the session's `last_pane_churn_at` moves):
 * never polled, never read for other rows. An answer overtaken by a newer read is dropped.
 */
export function usePreview(client: Client, session: Session | undefined): string | undefined {
  const [screen, setScreen] = useState<{ id: string; text: string } | undefined>(undefined)
  const id = session?.id
  const live = session !== undefined && session.liveness_name !== 'archived'
  useEffect(() => {
    if (id === undefined || !live) return
    let current = true
    client.call('Preview', { id }).then(
      ({ text }) => current && setScreen({ id, text }),
      () => undefined, // the session went away or the daemon is away: the last screen stays until the next change
    )
    return () => {
      current = false
    }
  }, [client, id, live, session?.last_pane_churn_at])
  if (!live) return session === undefined ? undefined : '(archived: no screen)'
  return screen !== undefined && screen.id === id ? screen.text : undefined
}
