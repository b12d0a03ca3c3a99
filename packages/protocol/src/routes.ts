import type { Static, TSchema } from 'typebox'
import * as config from './schemas/config.js'
import { HealthResponse } from './schemas/health.js'
import { Empty } from './schemas/common.js'
import * as sessions from './schemas/sessions.js'

export const ROUTE_GROUPS = ['health', 'sessions', 'tabs', 'projects', 'accounts', 'config', 'tasks'] as const
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

function rpc<N extends string, G extends RouteGroup, Req extends TSchema, Res extends TSchema>(
  name: N,
  group: G,
  summary: string,
  request: Req,
  response: Res,
  visibility: { public: boolean } = { public: true },
): RouteDef<N, G, Req, Res> {
  return { name, method: 'POST', path: `/v1/${name}`, group, summary, request, response, ...visibility }
}

/**
 * The single source of truth for what the daemon serves: it registers these, `svc routes`
 * prints them, and a route enters this table in the change that makes it work.
 */
export const routes = [
  {
    name: 'Health',
    method: 'GET',
    path: '/v1/health',
    group: 'health',
    summary: 'Liveness probe: version, boot id, warm-up phase and bound listeners; answers during warm-up',
    request: Empty,
    response: HealthResponse,
    public: true,
  } satisfies RouteDef<'Health', 'health', typeof Empty, typeof HealthResponse>,
  rpc(
    'SuggestSessionName',
    'sessions',
    'Suggest a readable adjective-noun name no live session uses',
    sessions.SuggestSessionNameRequest,
    sessions.SuggestSessionNameResponse,
  ),
  rpc(
    'Snapshot',
    'sessions',
    'List sessions from the daemon state, filtered by repo_id, live, statuses, created_after, limit',
    sessions.SnapshotRequest,
    sessions.SnapshotResponse,
  ),
  rpc(
    'GetConfig',
    'config',
    'Every global config key with purpose, type, default and current value',
    config.GetConfigRequest,
    config.GetConfigResponse,
  ),
  rpc(
    'SetConfigValue',
    'config',
    'Set one global config key (validated, locked, atomic) and apply it in place',
    config.SetConfigValueRequest,
    config.SetConfigValueResponse,
  ),
  rpc(
    'UnsetConfigValue',
    'config',
    'Clear one global config key under every spelling, back to its default',
    config.UnsetConfigValueRequest,
    config.UnsetConfigValueResponse,
  ),
] as const

export type Route = (typeof routes)[number]
export type RouteName = Route['name']
export type RouteNamed<N extends RouteName> = Extract<Route, { name: N }>
export type RequestOf<N extends RouteName> = Static<RouteNamed<N>['request']>
export type ResponseOf<N extends RouteName> = Static<RouteNamed<N>['response']>

const byName = new Map<string, Route>(routes.map((route) => [route.name, route]))
const byPath = new Map<string, Route>(routes.map((route) => [route.path, route]))

export function routeNamed<N extends RouteName>(name: N): RouteNamed<N> {
  return byName.get(name) as RouteNamed<N>
}

export function routeAt(path: string): Route | undefined {
  return byPath.get(path)
}

/** The public catalog, in table order. */
export function catalog(): Route[] {
  return routes.filter((route) => route.public)
}
