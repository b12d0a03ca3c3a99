// Types of budgets.mjs, for its test.
export function figureKey(suite: string, title: string, label: string): string
export function numberIn(value: string): number | undefined
export function verdicts(figures: Map<string, string>, budgets: Record<string, { max?: number; min?: number }>, recorded?: Record<string, string>, suites?: string[]): string[]
export function check(figures: Map<string, string>, suites: string[]): Promise<void>
export function record(figures: Map<string, string>): Promise<void>
