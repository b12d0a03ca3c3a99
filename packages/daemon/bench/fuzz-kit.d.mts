// Types of fuzz-kit.mjs, for the reliability tests that share it with the bench.
export interface FuzzRequest {
  route: string
  method: string
  path: string
  headers: Record<string, string>
  body: string | Buffer | undefined
}
export interface FuzzReply {
  method: string
  path: string
  status: number
  /** Content-Type of the answer. */
  type?: string
  text: string
  error?: string
}
export const CONTRACT_STATUSES: ReadonlySet<number>
export const READ_ONLY: ReadonlySet<string>
export function generator(seed: number): { next(): number; int(n: number): number; pick<T>(items: readonly T[]): T }
export function fuzzer(seed: number, options?: { hugeChars?: number }): { next(): FuzzRequest; oversized(): FuzzRequest }
export function judge(reply: FuzzReply): string[]
export function sendFuzz(socketPath: string, request: FuzzRequest): Promise<FuzzReply>
