import type { ResponseOf } from '@svc/protocol/browser'

export type ConfigAnswer = ResponseOf<'GetConfig'>
export type Entry = ConfigAnswer['entries'][number]
