import Type from 'typebox'
import type { Validator } from 'typebox/compile'
import { TaskInput } from '@svc/protocol'

/**
 * What the store accepts from disk, compiled once. Open objects: fields a newer daemon
 * added survive a read (and are dropped on the next write).
 */
export const StoredTask = Type.Object({ ...TaskInput.properties, id: Type.String() })

export const StoredRun = Type.Object({
  session_id: Type.String(),
  title: Type.String(),
  repo_id: Type.String(),
  task_id: Type.String(),
  started_at: Type.String(),
})

/** The first thing wrong with `value`, as `<path> <message>`, or undefined when it fits. */
export function problemOf(shape: Validator, value: unknown, whole: string): string | undefined {
  if (shape.Check(value)) return undefined
  const [problem] = shape.Errors(value)
  if (!problem) return `${whole} does not fit`
  const at = problem.instancePath.split('/').filter(Boolean).join('.')
  return `${at || whole} ${problem.message}`
}
