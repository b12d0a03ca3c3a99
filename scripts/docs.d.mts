export function regenerate(): Promise<Array<{ path: string; committed: string; current: string }>>
