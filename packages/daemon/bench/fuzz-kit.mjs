// Hostile input for every public route, reproducible from a seed: the reliability test
// sends a few thousand of these, `pnpm bench` many more. Shared by both, so a case added
// here is exercised in CI and measured in the bench. Bodies are sent as application/json
// but for two cases of the list, so most requests get past the content-type gate (415)
// to the JSON decoder, the schemas and the handlers.
import http from 'node:http'
import { CLIENT_VERSION_HEADER, MAX_BODY_BYTES, catalog } from '@svc/protocol'

/** Every status the contract allows; anything else is a finding. */
export const CONTRACT_STATUSES = new Set([200, 400, 401, 403, 404, 405, 413, 415, 500, 503])

/** Routes that only read: a 200 from any other route may change state. */
export const READ_ONLY = new Set([
  'Health', 'ListBackends', 'ListPrograms', 'SuggestSessionName', 'Snapshot', 'ListProjects',
  'ListDirectory', 'GetConfig', 'ListOnComplete', 'ListTasks', 'ListAccounts',
])

/** A small seeded generator (mulberry32): the same seed gives the same requests. */
export function generator(seed) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n) => Math.floor(next() * n)
  const pick = (items) => items[int(items.length)]
  return { next, int, pick }
}

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'valueOf', 'toString', '__defineSetter__']
const ODD_CHARS = ['\u0000', '\u202e', '\ud83d\ude00', '\ud800', 'é', '"', '\\', '\n', '%', '/', '..', '\u2028', '\uffff']
/** Every byte of `text` (lone surrogates included) as %XX. */
const percentEncoded = (text) => [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')
const VERBS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND']

/**
 * Request maker for `seed`. `hugeChars` bounds the huge strings (CI keeps them small;
 * the bench sends some near the 16 MiB cap).
 */
export function fuzzer(seed, { hugeChars = 200_000 } = {}) {
  const random = generator(seed)
  const { int, pick, next } = random
  const routes = catalog()

  const text = () => {
    const length = pick([0, 1, 5, 20, 200])
    let out = ''
    for (let i = 0; i < length; i++) out += next() < 0.3 ? pick(ODD_CHARS) : String.fromCharCode(97 + int(26))
    return out
  }
  const scalar = () => pick([() => text(), () => int(1e9) - 5e8, () => next() * 1e308, () => true, () => null, () => -0, () => 2 ** 53 + 1])()
  const nested = (levels, leaf = 1) => {
    let value = leaf
    for (let i = 0; i < levels; i++) value = next() < 0.5 ? [value] : { [pick(['a', '__proto__', 'task', 'x'])]: value }
    return value
  }
  /** Nesting as text: JSON.stringify itself would run out of stack. */
  const nestedText = (levels) => {
    const opens = Array.from({ length: levels }, () => (next() < 0.5 ? '[' : `{"${pick(['a', '__proto__', 'task'])}":`))
    return `${opens.join('')}1${opens.reverse().map((open) => (open === '[' ? ']' : '}')).join('')}`
  }
  const anyValue = (depth = 0) =>
    depth > 3 || next() < 0.6
      ? scalar()
      : pick([() => [anyValue(depth + 1), anyValue(depth + 1)], () => ({ [text()]: anyValue(depth + 1) })])()

  /** A body for `route`: its own fields given wrong or odd values, plus extra keys. */
  const body = (route) => {
    const fields = Object.keys(route.request.properties ?? {})
    const out = {}
    for (const field of fields) if (next() < 0.5) out[field] = anyValue()
    const extra = next()
    if (extra < 0.25) out[pick(PROTOTYPE_KEYS)] = anyValue()
    else if (extra < 0.4) out[text()] = anyValue()
    else if (extra < 0.45) out.auto_yes = true
    return out
  }

  /** A value of the schema's shape, so the request reaches the handler; one leaf then goes bad. */
  const plausible = (schema) => {
    if (schema.type === 'object') {
      return Object.fromEntries(Object.entries(schema.properties ?? {}).filter(() => next() < 0.7).map(([key, field]) => [key, plausible(field)]))
    }
    if (schema.type === 'array') return [plausible(schema.items ?? { type: 'string' })]
    if (schema.type === 'integer' || schema.type === 'number') return int(100)
    if (schema.type === 'boolean') return next() < 0.5
    return text()
  }
  const spoiled = (value, bad) => {
    const leaves = []
    const walk = (node, parent, key) => {
      if (node && typeof node === 'object') for (const [child, inner] of Object.entries(node)) walk(inner, node, child)
      else if (parent) leaves.push([parent, key])
    }
    walk(value)
    if (leaves.length > 0) {
      const [parent, key] = pick(leaves)
      parent[key] = bad
    }
    return value
  }

  /** `json` with one character replaced, dropped or doubled: almost JSON, for the decoder. */
  const mutated = (json) => {
    const at = int(json.length)
    const edit = pick([pick([...'{}[]":,\\0 ']), pick(ODD_CHARS), '', json.slice(at, at + 2)])
    return `${json.slice(0, at)}${edit}${json.slice(at + 1)}`
  }

  const huge = () => pick(['a', '\u0000', 'é', '{']).repeat(1 + int(hugeChars))
  const cases = [
    // Invalid JSON, in many shapes.
    (route) => ({ route, body: pick(['{', '{"a":', '[1,', '{"a":1}{"b":2}', 'nul', '"str"', '42', '[]', 'true', '{"a":1,}', "{'a':1}", '\u0000', '{"a":"\\ud800"}', '{"a":NaN}']) }),
    // Fields of the right names with wrong types, prototype and unknown keys.
    (route) => ({ route, body: JSON.stringify(body(route)) }),
    (route) => ({ route, body: JSON.stringify(body(route)), lenient: true }),
    // A prototype key at some depth of an otherwise plausible body.
    (route) => ({ route, body: JSON.stringify({ ...body(route), [pick(Object.keys(route.request.properties ?? { x: 0 }))]: nested(1 + int(4), { [pick(PROTOTYPE_KEYS)]: scalar() }) }), lenient: next() < 0.5 }),
    // A well-formed body with one field huge, odd or of the wrong type: the handlers' own checks.
    (route) => ({ route, body: JSON.stringify(spoiled(plausible(route.request), pick([huge, text, scalar, () => ({})])())) }),
    (route) => ({ route, body: JSON.stringify(spoiled(plausible(route.request), huge())), lenient: true }),
    // Huge strings in a field, and as a key.
    (route) => ({ route, body: JSON.stringify({ [pick(Object.keys(route.request.properties ?? { title: 0 }))]: huge() }) }),
    (route) => ({ route, body: JSON.stringify({ [huge()]: 1 }), lenient: next() < 0.5 }),
    // Deep nesting, from just past the limit to far beyond it.
    (route) => ({ route, body: `{"a":${nestedText(pick([65, 500, 5_000, 20_000, 100_000]))}}` }),
    (route) => ({ route, body: `${'['.repeat(pick([100, 10_000, 100_000]))}` }),
    // A body of the route's own shape, whole or with one character of its text mutated: the decoder's and handlers' paths.
    (route) => ({ route, body: JSON.stringify(plausible(route.request)), lenient: next() < 0.5 }),
    (route) => ({ route, body: mutated(JSON.stringify(plausible(route.request))) }),
    // Unicode, NUL bytes, odd content types and none: these few stop at the content-type gate.
    (route) => ({ route, body: JSON.stringify(body(route)), headers: { 'content-type': pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/octet-stream', 'application/json; charset=utf-16']) } }),
    (route) => ({ route, body: JSON.stringify(plausible(route.request)), headers: { 'content-type': undefined } }),
    (route) => ({ route, body: Buffer.from(Array.from({ length: 1 + int(64) }, () => int(256))) }),
    // Wrong verbs on a route.
    (route) => ({ route, method: pick(VERBS.filter((verb) => verb !== route.method)), body: next() < 0.5 ? '{}' : undefined }),
    // Odd paths: encodings, near misses, traversals, queries.
    (route) => ({
      route,
      path: pick([
        `${route.path}%ZZ`, `${route.path}/`, `/${route.path}`, `${route.path}?x=${percentEncoded(text())}`, route.path.toLowerCase(),
        `/v1/../v1/${route.name}`, `/v1/%2e%2e/${route.name}`, `/v2/${route.name}`, `/v1/${route.name}%00`, `/v1/${'N'.repeat(1 + int(6000))}`,
        `/v1/${percentEncoded(text())}`, '/', '*', '/v1', `/v1//${route.name}`, `/v1/${route.name}#frag`,
      ]),
      body: '{}',
    }),
  ]

  return {
    /** The next request: method, path, headers and body. */
    next() {
      const made = pick(cases)(pick(routes))
      // A body is JSON unless the case says otherwise (undefined: no content type at all), as real clients send it.
      const headers = made.body === undefined ? {} : { 'content-type': 'application/json' }
      for (const [name, value] of Object.entries(made.headers ?? {})) {
        if (value === undefined) delete headers[name]
        else headers[name] = value
      }
      if (made.lenient) headers[CLIENT_VERSION_HEADER] = '1.0.0'
      return { route: made.route.name, method: made.method ?? made.route.method, path: made.path ?? made.route.path, headers, body: made.body }
    },
    /** A body just over the cap, for the bench. */
    oversized: () => ({ route: 'AddTask', method: 'POST', path: '/v1/AddTask', headers: { 'content-type': 'application/json' }, body: Buffer.alloc(MAX_BODY_BYTES + 1, 0x61) }),
  }
}

/** The web UI's page, which the daemon serves outside /v1/ as HTML. */
const isWebPage = (reply) => reply.status === 200 && !reply.path.startsWith('/v1') && reply.type?.startsWith('text/html')

/** What an answer says about the contract: an envelope, a contract status, the rejection marker. */
export function judge(reply) {
  const findings = []
  if (isWebPage(reply)) return findings
  if (!CONTRACT_STATUSES.has(reply.status)) findings.push(`status ${reply.status}`)
  let json
  try {
    json = JSON.parse(reply.text)
  } catch {
    // A HEAD answer has no body by definition.
    if (reply.method !== 'HEAD') findings.push('not JSON')
  }
  if (json !== undefined) {
    const keys = json && typeof json === 'object' ? Object.keys(json).sort().join(',') : ''
    if (keys !== 'data,error') findings.push(`not an envelope: ${reply.text.slice(0, 120)}`)
    else if (reply.status !== 200 && json.error?.daemon_rejected !== true && json.error?.code !== 'mutation_committed') findings.push('error without daemon_rejected')
    else if (reply.status !== 200 && typeof json.error?.message === 'string' && json.error.message.length > 5_000) findings.push(`message of ${json.error.message.length} characters`)
  }
  return findings
}

/**
 * Sends one fuzz request on its own keep-alive connection, as real clients do (with
 * `Connection: close` the server must hang up right after an early answer, racing the
 * upload); resolves with what came back (status 0: no answer).
 */
export function sendFuzz(socketPath, { method, path, headers, body }) {
  return new Promise((resolve) => {
    const sent = body === undefined ? undefined : Buffer.from(body)
    const agent = new http.Agent({ keepAlive: true })
    const request = http.request({
      socketPath,
      method,
      path,
      agent,
      headers: { ...headers, ...(sent ? { 'content-length': sent.length } : {}) },
    })
    let answered = false
    request.on('close', () => agent.destroy())
    request.on('error', (error) => !answered && resolve({ method, path, status: 0, text: '', error: error.message }))
    request.on('response', (response) => {
      answered = true
      const chunks = []
      response.on('data', (chunk) => chunks.push(chunk))
      response.on('end', () =>
        resolve({ method, path, status: response.statusCode, type: response.headers['content-type'], text: Buffer.concat(chunks).toString('utf8') }),
      )
    })
    request.end(sent)
  })
}
