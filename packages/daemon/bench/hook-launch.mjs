#!/usr/bin/env node
// The launch_cmd of the hook bench's fleet: prints the endpoint of one of the agent servers
// the bench started (--endpoints, a JSON file of {url, token}), picked by the number that
// ends the slug, so that many hook sessions share few remotes. It starts nothing.
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ strict: false, options: { endpoints: { type: 'string' }, name: { type: 'string' } } })
const endpoints = JSON.parse(readFileSync(values.endpoints, 'utf8'))
const n = Number(/\d+$/.exec(values.name)?.[0] ?? 0)
process.stdout.write(`${JSON.stringify(endpoints[n % endpoints.length])}\n`)
