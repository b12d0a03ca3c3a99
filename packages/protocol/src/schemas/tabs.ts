import Type from 'typebox'
import { Closed, Request, SessionRef, TabRef } from './common.js'

export const CreateTabRequest = Request({
  ...SessionRef,
  command: Type.String(),
  name: Type.String(),
  shell: Type.Boolean(),
  kind: Type.String(),
  url: Type.String(),
  port: Type.Integer(),
})
export const CreateTabResponse = Closed({
  id: Type.Optional(Type.String()),
  name: Type.String(),
  tmux_name: Type.Optional(Type.String()),
})

export const CloseTabRequest = Request(TabRef)
export const CloseTabResponse = Closed({ name: Type.String() })

export const RenameTabRequest = Request({ ...TabRef, new_name: Type.String() })
export const RenameTabResponse = Closed({ ok: Type.Literal(true), name: Type.String() })

export const ReorderTabRequest = Request({ ...TabRef, new_index: Type.Integer() })
export const ReorderTabResponse = Closed({ ok: Type.Literal(true), name: Type.String(), index: Type.Integer() })
