/**
 * The machine's ceiling: a bare `Bun.serve` in its own process answering the same JSON bodies the
 * server gave, precomputed (`bun bench/system/ceiling.ts <bodies.json>`; keys are `METHOD /path?query`).
 * No routing framework, no authentication, no database: what this machine's Bun can do at best with
 * the same bodies, the same connections and the same load generator. Prints its port.
 */
import { readFileSync } from 'node:fs'

const bodies = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, { status: number; body: string }>
const headers = { 'content-type': 'application/json' }
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = new URL(request.url)
    // Read what was sent, as the server does.
    if (request.method !== 'GET') await request.arrayBuffer()
    const hit = bodies[`${request.method} ${url.pathname}${url.search}`]
    return hit ? new Response(hit.body, { status: hit.status, headers }) : new Response('{}', { status: 404, headers })
  },
})
console.log(server.port)
