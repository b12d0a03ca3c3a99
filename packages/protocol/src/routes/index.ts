import type { Static } from 'typebox'
import { accountRoutes } from './accounts.js'
import { configRoutes } from './config.js'
import { healthRoutes } from './health.js'
import { projectRoutes } from './projects.js'
import { sessionRoutes } from './sessions.js'
import { tabRoutes } from './tabs.js'
import { taskRoutes } from './tasks.js'
import { terminalRoutes } from './terminal.js'

export * from './define.js'

/**
 * The single source of truth for what the daemon serves: it registers these, `svc routes`
 * prints them, and a route enters this table in the change that makes it work. Each
 * group lists its routes in its own file.
 */
export const routes = [...healthRoutes, ...sessionRoutes, ...tabRoutes, ...projectRoutes, ...accountRoutes, ...configRoutes, ...taskRoutes, ...terminalRoutes] as const

export type Route = (typeof routes)[number]
export type RouteName = Route['name']
export type RouteNamed<N extends RouteName> = Extract<Route, { name: N }>
export type RequestOf<N extends RouteName> = Static<RouteNamed<N>['request']>
/** The fields of a request the route table declares required. */
export type RequiredOf<N extends RouteName> = RouteNamed<N>['required'][number]['field']
/** A request as its handler receives it: the required fields are there, checked by the daemon. */
export type CheckedRequestOf<N extends RouteName> = RequestOf<N> & {
  [F in RequiredOf<N> & keyof RequestOf<N>]-?: Exclude<RequestOf<N>[F], undefined>
}
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
