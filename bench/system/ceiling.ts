/**
 * The machine's ceiling: a bare `Bun.serve` in its own process answering the same JSON bodies the
 * server gave (`bun bench/system/ceiling.ts <bodies.json>`; keys are `METHOD /path?query`), each
 * either ready-made (`body`) or, where the server makes its answer's JSON on every request (`json`),
 * made the same way: JSON.stringify of a fresh copy of the object. No routing framework, no
 * authentication, no database: what this machine's Bun can do at best with the same answers and the
 * same connections. Prints its port.
 */
import { readFileSync } from 'node:fs'

const bodies = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<string, { status: number; body?: string; json?: object }>
const headers = { 'content-type': 'application/json' }
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const url = new URL(request.url)
    // Read what was sent, as the server does.
    if (request.method !== 'GET') await request.arrayBuffer()
    const hit = bodies[`${request.method} ${url.pathname}${url.search}`]
    if (!hit) return new Response('{}', { status: 404, headers })
    return new Response(hit.json ? JSON.stringify({ ...hit.json }) : hit.body, { status: hit.status, headers })
  },
})
console.log(server.port)
