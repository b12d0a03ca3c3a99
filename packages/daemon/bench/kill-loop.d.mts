// Types of kill-loop.mjs, for the reliability test that shares it with the bench.
export interface KillLoopFigures {
  cycles: number
  acked: number
  attempted: number
  lost: string[]
  firstWriteMs: number[]
  startMs: number[]
  leftByKills: number
  leftAfterStart: string[]
}
export function killLoop(options: { dir: string; cycles: number; seed?: number; writers?: number }): Promise<KillLoopFigures>
export function startOn(home: string, env?: Record<string, string>): Promise<{ client: import('@svc/protocol').Client; startMs: number; kill(signal?: NodeJS.Signals): Promise<void> }>
