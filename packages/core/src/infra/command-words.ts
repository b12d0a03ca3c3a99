/**
 * The words of a command line as svc reads it to find its program and arguments: split
 * on whitespace, no quoting (hooks run without a shell; agents' lines go to `sh -c` whole).
 */
export function commandWords(line: string): string[] {
  return line.trim().split(/\s+/).filter(Boolean)
}
