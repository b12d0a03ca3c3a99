import Type, { type TProperties, type TSchema } from 'typebox'

/**
 * A request body: every field optional (the handler reports missing ones) and no
 * unknown keys, so strict decoding can name the first unrecognized field.
 */
export function Request<P extends TProperties>(properties: P) {
  const optional = Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => [key, Type.Optional(schema)]),
  ) as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> }
  return Type.Object(optional, { additionalProperties: false })
}

export const Empty = Request({})

/**
 * A response object: exactly these fields. Clients ignore fields they do not know, but
 * the daemon's own tests must not, or a shape could drift without a failing test.
 */
export function Closed<P extends TProperties>(properties: P) {
  return Type.Object(properties, { additionalProperties: false })
}

export const Ok = Closed({ ok: Type.Literal(true) })

export const Timestamp = Type.String({ description: 'RFC 3339 timestamp' })

/** Fields that pick one session. */
export const SessionRef = {
  title: Type.String(),
  repo_id: Type.String(),
  id: Type.String(),
}

/** Fields that pick one tab of a session. */
export const TabRef = {
  ...SessionRef,
  tab_name: Type.String(),
  tab_index: Type.Integer(),
  tab_id: Type.String(),
}

export const ErrorBody = Type.Object({
  message: Type.String(),
  daemon_rejected: Type.Optional(Type.Boolean()),
  code: Type.Optional(Type.String()),
})

export function Envelope<T extends TSchema>(data: T) {
  return Type.Object({
    data: Type.Union([data, Type.Null()]),
    error: Type.Union([ErrorBody, Type.Null()]),
  })
}
