import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { emptyDir, overHttp, runExecutable, startExecutable, type Running } from '../helpers/executable'
import { registerBuyer } from '../helpers/orders'
import { activeStudent, apiKey, createKey, expectOk } from '../helpers/world'
import { stopWine, windowsExecutable, wineMissing, type Wine } from '../helpers/wine'

/**
 * The Windows executable, run under Debian's wine with the test-only stand-in for bcryptprimitives.dll
 * (helpers/wine.ts), through what a teacher and a class do with it. A missing wine is a failure that
 * says what to install, never a skip: most students carry Windows laptops, and this is the only place
 * their executable runs before they do.
 */
const dir = emptyDir()
let prepared: Promise<Wine & { version: string }> | undefined
/** The executable under wine, built once for the tests of this file. */
function windows() {
  const missing = wineMissing()
  if (missing) throw new Error(missing)
  prepared ??= windowsExecutable(dir)
  return prepared
}
afterAll(async () => {
  if (prepared) await stopWine(await prepared)
})

/** A data folder as a Windows user has one: spaces and a non-ASCII letter in its path. */
const HOME = 'C:\\users\\João Silva'
const DATA = `${HOME}\\Storefront data`
const PNG = [0x89, 0x50, 0x4e, 0x47]

/** Starts the Windows executable on `data` (wine starts it in a few seconds, the first time longer). */
const start = async (wine: Wine, data: string) => startExecutable(wine.exe, dir, ['--data', data, '--rate-limit-rps', '0'], wine.env, 60_000)
/** Stops it as Ctrl-C in its console window does: wine turns SIGINT into that console event. */
async function stop(server: Running) {
  expect(await server.stop('SIGINT')).toBe(0)
  expect(server.stdout()).toMatch(/SIGINT received: finishing requests in flight, then stopping\n.*stopped cleanly\n$/)
}
const command = async (wine: Wine, args: string[]) => runExecutable(wine.exe, args, dir, wine.env)

/** What the class did, for the later tests to find again. */
let made: { groupId: string; key: string; orderId: string; image: string; products: number } | undefined

describe('the Windows executable, under wine', () => {
  test('on a data folder whose path has spaces and accents: a class works with it over HTTP, the teacher\'s commands reach it through its named pipe, and Ctrl-C stops it cleanly', async () => {
    const wine = await windows()
    expect(wine.version).toBe((await Bun.file(join(import.meta.dir, '..', '..', 'package.json')).json()).version)
    const server = await start(wine, DATA)
    try {
      expect(server.stdout()).toContain(`data dir     ${DATA}`)
      expect(await (await fetch(`${server.base}/health`)).json()).toMatchObject({ status: 'ok', version: wine.version })
      const call = overHttp(server.base)
      const admin = { 'x-admin-token': readFileSync(wine.onC(`${DATA}\\admin-token`), 'utf8').trim() }

      // The teacher makes a group; its student logs in (argon2 hashes), changes the password and makes a key.
      const group = await expectOk(call('POST', '/v1/admin/groups', { headers: admin, body: { name: 'Azul', members: [{ rm: '100', name: 'João' }] } }), 201)
      const key = (await createKey(call, await activeStudent(call, '100'))).apiKey
      const seeded = await expectOk(call('POST', `/v1/admin/groups/${group.id}/seed-demo`, { headers: admin }), 201)
      expect(seeded).toMatchObject({ products: 40, images: 40 })

      // A customer browses, buys and pays.
      const list = await expectOk(call('GET', '/v1/products?pageSize=100&state=PUBLISHED', { headers: apiKey(key) }))
      const product = list.data.find((p: { variants: { stock: number }[] }) => p.variants.some((v) => v.stock > 0))
      const variant = product.variants.find((v: { stock: number }) => v.stock > 0)
      const shop = await registerBuyer(call, key, 'maria@example.com', 'Maria')
      await expectOk(shop.add(variant.id, 1))
      const order = await expectOk(shop.checkout(), 201)
      const paid = await expectOk(shop.pay(order.id))
      expect([order.status, paid.status]).toEqual(['PENDING', 'PAID'])

      // The product's picture, a file in the media folder, is served as it was stored.
      const image = new URL(product.image).pathname
      const picture = await fetch(`${server.base}${image}`)
      expect(picture.headers.get('content-type')).toBe('image/png')
      expect([...new Uint8Array(await picture.arrayBuffer()).slice(0, 4)]).toEqual(PNG)
      made = { groupId: group.id, key, orderId: order.id, image, products: (await expectOk(call('GET', '/v1/products?pageSize=1', { headers: apiKey(key) }))).total }

      // The teacher's activity report, from the running server through its named pipe.
      const activity = await command(wine, ['activity', '--csv', '--data', DATA])
      expect([activity.code, activity.stderr]).toEqual([0, ''])
      expect(activity.stdout).toContain('Azul')
      expect(activity.stdout).toContain('João')
    } finally {
      await stop(server)
    }
  }, 180_000)
})
