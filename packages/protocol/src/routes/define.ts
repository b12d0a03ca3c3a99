import type { TSchema } from 'typebox'

export const ROUTE_GROUPS = ['health', 'sessions', 'tabs', 'projects', 'accounts', 'config', 'tasks', 'terminal'] as const
export type RouteGroup = (typeof ROUTE_GROUPS)[number]

export interface RouteDef<
  N extends string = string,
  G extends RouteGroup = RouteGroup,
  Req extends TSchema = TSchema,
  Res extends TSchema = TSchema,
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
}

/** An envelope RPC: `POST /v1/<name>`. */
export function rpc<N extends string, G extends RouteGroup, Req extends TSchema, Res extends TSchema>(
  name: N,
  group: G,
  summary: string,
  request: Req,
  response: Res,
  visibility: { public: boolean } = { public: true },
): RouteDef<N, G, Req, Res> {
  return { name, method: 'POST', path: `/v1/${name}`, group, summary, request, response, ...visibility }
}
