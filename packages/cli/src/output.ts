/** Where output goes and in which form: JSON for scripts (or `--json`), tables for people. */
export interface Output {
  json: boolean
}

export function outputOf(options: { json?: boolean }): Output {
  return { json: options.json === true || !process.stdout.isTTY }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
}

/** Left-aligned columns; the last column is never padded. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)))
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd()
  process.stdout.write(`${[line(headers), ...rows.map(line)].join('\n')}\n`)
}

/** `key: value` lines for one object, nested objects flattened with dots. */
export function printFields(value: Record<string, unknown>, prefix = ''): void {
  for (const [key, field] of Object.entries(value)) {
    if (field !== null && typeof field === 'object' && !Array.isArray(field)) {
      printFields(field as Record<string, unknown>, `${prefix}${key}.`)
    } else {
      process.stdout.write(`${prefix}${key}: ${Array.isArray(field) ? JSON.stringify(field) : String(field)}\n`)
    }
  }
}
