import type { Static } from 'typebox'
import type * as wire from '@svc/protocol'

/** A wire shape by its schema's name in @svc/protocol (`Req<'DeliverPromptResponse'>`). */
export type Req<T extends keyof typeof wire> = Static<(typeof wire)[T]>
