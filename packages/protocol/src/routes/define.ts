import type { Static, TSchema } from 'typebox'

export const ROUTE_GROUPS = ['health', 'sessions', 'tabs', 'projects', 'accounts', 'config', 'tasks', 'terminal'] as const
export type RouteGroup = (typeof ROUTE_GROUPS)[number]

/**
 * A request field the route cannot do without. Request schemas keep every field optional
 * (a missing one is a 400 nowhere), and the daemon answers one absent, or `""`, with the
 * envelope "<field> is required (<hint>)": a 500, as the API document has validation.
 */
export interface RequiredField<F extends string = string> {
  field: F
  /** What to send, said in parentheses after the message. */
  hint?: string
  /** `""` is a value here (a config value may be empty), so only an absent field is missing. */
  emptyAllowed?: true
}

export interface RouteDef<
  N extends string = string,
  G extends RouteGroup = RouteGroup,
  Req extends TSchema = TSchema,
  Res extends TSchema = TSchema,
  F extends string = string,
> {
  name: N
  method: 'GET' | 'POST'
  path: string
  group: G
  summary: string
  request: Req
  response: Res
  /** Public routes form the catalog; internal ones are served but not advertised. */
  public: boolean
  /** Checked in this order before the handler runs, which may then rely on them. */
  required: readonly RequiredField<F>[]
}

type FieldOf<Req extends TSchema> = keyof Static<Req> & string

export interface RpcOptions<F extends string> {
  public?: boolean
  required?: readonly (F | RequiredField<F>)[]
}

/** An envelope RPC: `POST /v1/<name>`. */
export function rpc<N extends string, G extends RouteGroup, Req extends TSchema, Res extends TSchema, const F extends FieldOf<Req> = never>(
  name: N,
  group: G,
  summary: string,
  request: Req,
  response: Res,
  options: RpcOptions<F> = {},
): RouteDef<N, G, Req, Res, F> {
  const required = (options.required ?? []).map((need) => (typeof need === 'string' ? { field: need } : need))
  return { name, method: 'POST', path: `/v1/${name}`, group, summary, request, response, public: options.public ?? true, required }
}
