// Types of task-writes.mjs, for the concurrency test that shares it with the bench.
export interface TaskWriteFigures {
  rps: number
  seconds: number
  /** Every request's latency, sorted, in milliseconds. */
  latencies: number[]
  failures: string[]
  /** Each task id a client touched: the name its last acknowledged write left, null when removed. */
  expected: Map<string, string | null>
}
export function storedTasks(count: number): string
export function taskWrites(options: { socketPath: string; clients: number; mutations: number; seed?: number }): Promise<TaskWriteFigures>
export function lostWrites(expected: Map<string, string | null>, tasks: ReadonlyArray<{ id: string; name: string }>): string[]
