/**
 * Webhook receivers for the fan-out measurement, in their own process: answers every POST with 204
 * and counts it; `GET /stats` tells how many arrived and when the first and last did (epoch ms).
 */
let count = 0
let first = 0
let last = 0
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    if (request.method === 'GET') return Response.json({ count, first, last })
    await request.arrayBuffer()
    const now = Date.now()
    if (count++ === 0) first = now
    last = now
    return new Response(null, { status: 204 })
  },
})
console.log(server.port)
