import { entryOf } from './config.js'
import { CONFIG_KEY_NAMES, CONFIG_KEYS, type KeyDef } from './keys.js'

/** The purpose as markdown prose in a table cell: `<port>` must not open an HTML tag, nor `|` end the cell. */
function prose(text: string): string {
  return text.replaceAll('<', '&lt;').replaceAll('*', '\\*').replaceAll('|', '\\|')
}

function code(text: string): string {
  return text === '' ? '`""`' : `\`${text.replaceAll('|', '\\|')}\``
}

/** One row per key, from the same entry GetConfig answers, with the default as a fresh config.json has it. */
function row(name: (typeof CONFIG_KEY_NAMES)[number]): string {
  const def = CONFIG_KEYS[name] as KeyDef
  const entry = entryOf(name, def.default, 'default')
  const type = entry.enum ? entry.enum.map(code).join(' or ') : entry.type
  const applies = entry.applies === 'next-start' ? 'next start' : 'now'
  const aliases = entry.aliases ? ` Alias: ${entry.aliases.map(code).join(', ')}.` : ''
  const purpose = `${prose(entry.purpose)}.${aliases}`
  return `| ${code(name)} | ${entry.tier} ${entry.tier_name} | ${entry.scope} | ${type} | ${code(def.shownDefault ?? entry.default)} | ${applies} | ${purpose} |`
}

/** docs/configuration.md's generated part: every key of the key table. */
export function configReference(): string {
  return [
    '| Key | Tier | Scope | Type | Default | Applies | Purpose |',
    '|---|---|---|---|---|---|---|',
    ...CONFIG_KEY_NAMES.map(row),
  ].join('\n')
}
