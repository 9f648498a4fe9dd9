import { describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { TRIM_EVERY } from '../../src/features/webhooks/dispatcher'
import { DELIVERY_LOG_KEEP } from '../../src/features/webhooks/retention'
import { buildExecutable, emptyDir, overHttp, type Running, startExecutable } from '../helpers/executable'
import { startReceiver, waitFor } from '../helpers/receivers'
import { LONG } from './openapi-ops'

const bin = await buildExecutable()

/**
 * Webhook log drill: one store with 10 endpoints pings them without pause (rate limit off), each
 * answer 2 KB that the log keeps, in phases of PINGS deliveries. After each phase the server is
 * stopped, which folds the WAL into the database file, and the file is measured; then it starts
 * again. Once the store's log is full, the file stops growing: freed pages are used again. Without
 * the bound each phase added about 4 KB a delivery (2.5 MiB a quick phase). Quick: 4 phases of 600; DRILLS=long: 10 of 2,000.
 */
const PHASES = LONG ? 10 : 4
const PINGS = LONG ? 2000 : 600
const CONCURRENCY = 16
const ADMIN = 'adm_webhook_log_drill_token_0123'
const ANSWER = 'x'.repeat(2048)
const MiB = 1024 * 1024

async function storeWithEndpoints(server: Running, urls: string[]) {
  const call = overHttp(server.base)
  const ok = async (res: Promise<{ status: number; body: any; text: string }>) => {
    const r = await res
    if (r.status >= 300) throw new Error(`${r.status} ${r.text}`)
    return r.body
  }
  await ok(call('POST', '/v1/admin/groups', { headers: { 'x-admin-token': ADMIN }, body: { name: 'Hooks', members: [{ rm: 'w1001', name: 'Wes' }] } }))
  const first = await ok(call('POST', '/v1/store/auth/login', { body: { rm: 'w1001', password: 'w1001' } }))
  const changed = await ok(call('POST', '/v1/store/auth/change-password', { headers: { authorization: `Bearer ${first.token}` }, body: { currentPassword: 'w1001', newPassword: 'w1001-password' } }))
  const key = { 'x-api-key': (await ok(call('POST', '/v1/store/api-keys', { headers: { authorization: `Bearer ${changed.token}` }, body: { name: 'load' } }))).apiKey as string }
  const hooks: string[] = []
  for (const url of urls) hooks.push((await ok(call('POST', '/v1/webhooks', { headers: key, body: { url, events: ['ping'] } }))).id)
  return { key, hooks }
}

/** `count` pings spread over the endpoints, CONCURRENCY at a time. */
async function ping(base: string, key: Record<string, string>, hooks: string[], count: number) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const hook = hooks[next++ % hooks.length]
      const res = await fetch(`${base}/v1/webhooks/${hook}/ping`, { method: 'POST', headers: key })
      if (res.status !== 202) throw new Error(`ping: ${res.status} ${await res.text()}`)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

describe(`webhook log drill (${PHASES} x ${PINGS} deliveries${LONG ? ', long' : ''})`, () => {
  test("under a sustained delivery load the database levels off once the store's log is full", async () => {
    const receiver = startReceiver(() => new Response(ANSWER))
    const dir = emptyDir()
    const args = ['--data', dir, '--admin-token', ADMIN, '--rate-limit-rps', '0', '--allow-loopback-webhooks']
    let server = await startExecutable(bin, dir, args)
    const sizes: number[] = []
    try {
      const { key, hooks } = await storeWithEndpoints(server, Array.from({ length: 10 }, (_, i) => `${receiver.url}-${i}`))
      for (let phase = 1; phase <= PHASES; phase++) {
        if (phase > 1) server = await startExecutable(bin, dir, args)
        await ping(server.base, key, hooks, PINGS)
        await waitFor(() => receiver.received.length === phase * PINGS, 30_000, `the deliveries of phase ${phase}`)
        // Received is not yet recorded: wait until no attempt is pending.
        const log = async (status: string) => (await overHttp(server.base)('GET', `/v1/webhooks/deliveries?status=${status}&pageSize=1`, { headers: key })).body.total as number
        await waitFor(async () => (await log('PENDING')) === 0, 10_000, `phase ${phase}'s attempts to be recorded`)
        expect(await log('SUCCEEDED')).toBeLessThan(DELIVERY_LOG_KEEP + TRIM_EVERY)
        expect(await server.stop('SIGTERM')).toBe(0)
        sizes.push(statSync(join(dir, 'storefront.db')).size)
      }
    } finally {
      if (server.proc.exitCode === null) await server.stop('SIGTERM')
    }
    if (process.env.DRILLS_VERBOSE) console.log({ sizesMiB: sizes.map((s) => +(s / MiB).toFixed(2)) })
    // Phase 1 alone is below the bound (600 < 1,000); from phase 2 the log is full, and the file holds still.
    const full = sizes[1]!
    for (const size of sizes.slice(2)) expect(size).toBeLessThanOrEqual(full * 1.1)
    // Well under what the phases after it would have added without the bound, about 4 KB a delivery.
    expect(sizes.at(-1)! - full).toBeLessThan(((PHASES - 2) * PINGS * 4 * 1024) / 10)
  }, LONG ? 300_000 : 60_000)
})
