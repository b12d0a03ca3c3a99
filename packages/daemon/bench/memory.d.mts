// Types of memory.mjs, for the memory test that shares it with the bench.
export function rssMiB(pid: number): number
export function inspectorOptions(): Promise<{ port: number; env: Record<string, string> }>
export function heapAfterGc(port: number): Promise<number>
export function resetPeakRss(pid: number): void
export function peakRssMiB(pid: number): number
