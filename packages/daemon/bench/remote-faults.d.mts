// Types of remote-faults.mjs, for the test that shares it with the bench.
export interface RemoteFaultFigures {
  cycles: number
  sessions: number
  operations: Record<string, number>
  notes: number
  lost: string[]
  leftovers: string[]
  unsettled: string[]
  hostKeyChanges: number
  /** Sessions that read reachable while their host presented another key. */
  wrongKeyAccepted: string[]
  /** Each cycle's step, when the daemon was killed, and its answer. */
  steps: string[]
}
/** Where the hosts' side runs: an address, a spawn that starts processes there, its network namespace's name if any. */
export interface FaultPlace {
  address: string
  spawn: typeof import('node:child_process').spawn
  netns?: string
}
export function remoteFaults(options: { dir: string; cycles: number; seed?: number; place?: FaultPlace }): Promise<RemoteFaultFigures>
