import { randomInt } from 'node:crypto'

const ADJECTIVES = [
  'amber', 'bold', 'brisk', 'calm', 'clever', 'cosmic', 'crisp', 'daring', 'eager', 'fancy',
  'gentle', 'glad', 'golden', 'happy', 'humble', 'jolly', 'keen', 'lively', 'lucky', 'mellow',
  'merry', 'nimble', 'noble', 'plucky', 'polite', 'proud', 'quick', 'quiet', 'rapid', 'sunny',
  'swift', 'tidy', 'vivid', 'witty', 'zesty', 'steady', 'silver', 'spry', 'stout', 'wise',
]
const NOUNS = [
  'badger', 'beacon', 'cedar', 'comet', 'crane', 'falcon', 'fern', 'fox', 'harbor', 'heron',
  'koala', 'lantern', 'lynx', 'maple', 'meadow', 'otter', 'panda', 'pebble', 'pine', 'quill',
  'raven', 'river', 'robin', 'sparrow', 'spruce', 'summit', 'tiger', 'walrus', 'willow', 'wren',
  'acorn', 'birch', 'canyon', 'delta', 'ember', 'glacier', 'island', 'marble', 'orchid', 'puffin',
]

function pick(words: readonly string[]): string {
  return words[randomInt(words.length)] as string
}

/** A random adjective-noun name not in `taken`, numbered once the word pairs run out. */
export function suggestName(taken: ReadonlySet<string>): string {
  for (let attempt = 0; attempt < 64; attempt++) {
    const name = `${pick(ADJECTIVES)}-${pick(NOUNS)}`
    if (!taken.has(name)) return name
  }
  const base = `${pick(ADJECTIVES)}-${pick(NOUNS)}`
  let suffix = 2
  while (taken.has(`${base}-${suffix}`)) suffix++
  return `${base}-${suffix}`
}
