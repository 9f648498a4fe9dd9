/**
 * A bare `Bun.serve` that answers every request with one JSON body about the size of list page 1 and the
 * headers the kernel sets on it (CORS, a request id, the content type); `on` adds the three
 * RateLimit-* headers as the rate limiter writes them. For measuring what those three headers cost by
 * themselves (bookkeeping.ts): `bun bench/system/header-server.ts on|off`. Prints its port.
 */
import { corsHeaders } from '../../src/kernel/http/cors'
import { randomToken } from '../../src/kernel/ids'

const withLimit = process.argv[2] === 'on'
const body = JSON.stringify({ data: Array.from({ length: 20 }, (_, i) => ({ id: `prd_${i}`, name: `Produto ${i}`, description: 'x'.repeat(200), price: 1234 })), page: 1, pageSize: 20, total: 100000 })
let n = 0
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch() {
    n++
    const headers: Record<string, string> = { ...corsHeaders, 'x-request-id': `req_${randomToken(16)}` }
    if (withLimit) {
      headers['ratelimit-limit'] = '1000000'
      headers['ratelimit-remaining'] = String(999_999 - (n % 1000))
      headers['ratelimit-reset'] = '1'
    }
    headers['content-type'] = 'application/json'
    return new Response(body, { headers })
  },
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
console.log(server.port)
