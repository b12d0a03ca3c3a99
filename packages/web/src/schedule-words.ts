import cronstrue from 'cronstrue'

/** The schedule in words, or why it does not read as a cron expression; the daemon has the last word. */
export function schedulePreview(cron: string): string {
  if (!cron.trim()) return ''
  try {
    return cronstrue.toString(cron, { use24HourTimeFormat: true })
  } catch (error) {
    return `not a cron expression: ${String(error)}`
  }
}
