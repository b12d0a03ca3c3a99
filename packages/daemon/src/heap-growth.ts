import { setFlagsFromString } from 'node:v8'

/**
 * Lets the old generation grow by half of what the last full collection kept before the
 * next one, in place of the factor V8 picks from its speed figures: 1.1 to 4, and 4 once
 * the heap limit is gigabytes, as on any machine with a few GiB of RAM. The daemon's live
 * heap is a few tens of MiB, but a body of megabytes leaves its text in the old
 * generation: the text is still in use while JSON.parse allocates, and the young
 * collection that allocation sets off promotes it. At 4, hundreds of MiB of such dead
 * text piled up between full collections (the fuzz soak's RSS peaked at 6 times its
 * start, and near 2 times still with a factor of 2); at 1.2, bodies of megabytes took
 * twice as long, as most set off a full collection. V8 reads the flag at each
 * collection, so it takes effect in a running process.
 */
export function limitHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50')
}
