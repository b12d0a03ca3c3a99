import { describe, expect, it } from 'vitest'
import type { TSchema } from 'typebox'
import { catalog, routeAt, routeNamed, routes } from './index.js'

/** Every object in a request schema must refuse unknown keys, or strict decoding leaks. */
function objectsAllowingExtras(schema: TSchema & Record<string, any>, at = '$'): string[] {
  const own = schema.type === 'object' && schema.additionalProperties !== false ? [at] : []
  const nested = Object.entries((schema.properties ?? {}) as Record<string, TSchema>).flatMap(([key, child]) =>
    objectsAllowingExtras(child as TSchema & Record<string, any>, `${at}.${key}`),
  )
  const items = schema.items ? objectsAllowingExtras(schema.items, `${at}[]`) : []
  return [...own, ...nested, ...items]
}

describe('route table', () => {
  it('has unique names and paths, RPCs at POST /v1/<Name>', () => {
    expect(new Set(routes.map((route) => route.name)).size).toBe(routes.length)
    expect(new Set(routes.map((route) => route.path)).size).toBe(routes.length)
    for (const route of routes) {
      if (route.name === 'Health') expect([route.method, route.path]).toEqual(['GET', '/v1/health'])
      else if (route.name === 'AuthInfo') expect([route.method, route.path]).toEqual(['GET', '/v1/auth-info'])
      else expect([route.method, route.path]).toEqual(['POST', `/v1/${route.name}`])
      expect(route.summary.length).toBeGreaterThan(10)
    }
  })

  it('uses closed request schemas everywhere', () => {
    for (const route of routes) expect(objectsAllowingExtras(route.request as never), route.name).toEqual([])
  })

  it('uses exact response schemas everywhere, so the test harness catches a drifting shape', () => {
    for (const route of routes) expect(objectsAllowingExtras(route.response as never), route.name).toEqual([])
  })

  it('declares as required only fields its request schema has', () => {
    for (const route of routes) {
      const fields = Object.keys((route.request as TSchema & { properties?: object }).properties ?? {})
      for (const { field } of route.required) expect(fields, route.name).toContain(field)
    }
  })

  it('looks routes up by name and path, and lists public ones in the catalog', () => {
    expect(routeNamed('Snapshot').path).toBe('/v1/Snapshot')
    expect(routeAt('/v1/GetConfig')?.name).toBe('GetConfig')
    expect(routeAt('/v1/SetPRInfo')).toBeUndefined()
    expect(catalog().every((route) => route.public)).toBe(true)
    expect(catalog().map((route) => route.name)).not.toContain('AuthInfo')
  })
})
