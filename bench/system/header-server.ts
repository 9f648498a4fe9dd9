/**
 * A bare `Bun.serve` that answers every request with one JSON body about the size of list page 1 and
 * the headers the kernel sets on it (CORS, a request id, the content type); `on` adds the three
 * RateLimit-* headers, written by the app's own rate limiter at a limit no run reaches. For measuring
 * what those headers cost by themselves (bookkeeping.ts): `bun bench/system/header-server.ts on|off`.
 * Prints its port.
 */
import { RateLimiter } from '../../src/kernel/auth/rate-limiter'
import { systemClock } from '../../src/kernel/clock'
import { corsHeaders } from '../../src/kernel/http/cors'
import { randomToken } from '../../src/kernel/ids'

const limiter = process.argv[2] === 'on' ? new RateLimiter(systemClock, 1_000_000, 1_000_000) : null
const body = JSON.stringify({ data: Array.from({ length: 20 }, (_, i) => ({ id: `prd_${i}`, name: `Produto ${i}`, description: 'x'.repeat(200), price: 1234 })), page: 1, pageSize: 20, total: 100000 })
const server = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch() {
    const headers: Record<string, string> = { ...corsHeaders, 'x-request-id': `req_${randomToken(16)}` }
    limiter?.take('store', headers)
    headers['content-type'] = 'application/json'
    return new Response(body, { headers })
  },
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
console.log(server.port)
