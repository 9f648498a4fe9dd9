import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { emptyDir, overHttp, runExecutable, startExecutable, type Running } from '../helpers/executable'
import { registerBuyer } from '../helpers/orders'
import { activeStudent, apiKey, createKey, expectOk } from '../helpers/world'
import { stopWine, windowsExecutable, wineMissing, type Wine } from '../helpers/wine'
import { limit } from '../helpers/limits'

/**
 * The Windows executable, run under Debian's wine with the test-only stand-in for bcryptprimitives.dll
 * (helpers/wine.ts), through what a teacher and a class do with it. Most students carry Windows
 * laptops, and this is the only place their executable runs before they do: .ci/run installs wine, so
 * in CI a missing wine is a failure that says what to install. On a laptop without wine (a Mac, Windows
 * itself) the file is left out, as the arm64 executable's is without qemu.
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
/** What a backup of the class's folder holds: the database, media/, the store's folder in it and the demo's 40 pictures. */
const BACKUP_ENTRIES = 43

/** Starts the Windows executable on `data` (wine starts it in a few seconds, the first time longer). */
const start = async (wine: Wine, data: string) => startExecutable(wine.exe, dir, ['--data', data, '--rate-limit-rps', '0'], wine.env, limit(60_000))
/**
 * Runs `work` on the started server, then stops it as Ctrl-C in its console window does (wine turns
 * SIGINT into that console event) and checks it stopped cleanly; a failure of `work` is the one told.
 */
async function whileRunning(server: Running, work: () => Promise<void>) {
  let code: number
  try {
    await work()
  } finally {
    code = await server.stop('SIGINT')
  }
  expect([code, server.stdout()]).toEqual([0, expect.stringMatching(/SIGINT received: finishing requests in flight, then stopping\n.*stopped cleanly\n$/)])
}
const command = async (wine: Wine, args: string[]) => runExecutable(wine.exe, args, dir, wine.env)

/** What the class did, for the later tests to find again. */
let made: { key: string; orderId: string; image: string; products: number } | undefined

describe.skipIf(wineMissing() !== undefined && !process.env.CI)('the Windows executable, under wine', () => {
  test('on a data folder whose path has spaces and accents: a class works with it over HTTP, the teacher\'s commands reach it through its named pipe, and Ctrl-C stops it cleanly', async () => {
    const wine = await windows()
    expect(wine.version).toBe((await Bun.file(join(import.meta.dir, '..', '..', 'package.json')).json()).version)
    const server = await start(wine, DATA)
    await whileRunning(server, async () => {
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
      made = { key, orderId: order.id, image, products: (await expectOk(call('GET', '/v1/products?pageSize=1', { headers: apiKey(key) }))).total }

      // The teacher's activity report, from the running server through its named pipe.
      const activity = await command(wine, ['activity', '--csv', '--data', DATA])
      expect([activity.code, activity.stderr]).toEqual([0, ''])
      // The student's own calls (password change, new key); those made with the key or a customer's token (6) are the group's.
      expect(activity.stdout.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T')).toBe(
        [
          'group_id,group,rm,name,calls,errors,last_call_at',
          `${group.id},Azul,100,João,2,0,T`,
          `${group.id},Azul,,(unattributed),6,0,`,
          `${group.id},Azul,,(shop front),0,0,`,
          `${group.id},Azul,,(group total),8,0,T`,
          '',
        ].join('\r\n'),
      )
      // The same folder written another way (wine's drive Z: is the root of the Linux side) reaches the
      // same server: the pipe is named after the folder's final path.
      const elsewhere = await command(wine, ['activity', '--csv', '--data', `Z:${wine.onC(DATA).replaceAll('/', '\\')}`])
      expect([elsewhere.code, elsewhere.stderr, elsewhere.stdout]).toEqual([0, '', activity.stdout])
      // A backup, written by the running server while it keeps serving.
      const backup = await command(wine, ['backup', `${HOME}\\aula em curso.tar.gz`, '--data', DATA])
      expect([backup.code, backup.stderr, backup.stdout]).toEqual([0, '', `backup of ${DATA} written to ${HOME}\\aula em curso.tar.gz (${BACKUP_ENTRIES} entries)\n`])
      expect((await fetch(`${server.base}/health`)).status).toBe(200)
      // A second server on the folder asks the pipe, finds this one there, and says so.
      const second = await command(wine, ['--data', DATA, '--port', '0'])
      // All three at once: a wrong code shows what the second server printed.
      expect({ code: second.code, stdout: second.stdout, stderr: second.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: expect.stringContaining(`--data / DATA_DIR: another Storefront (pid ${readFileSync(wine.onC(`${DATA}\\server.pid`), 'utf8')}) is serving ${DATA}; stop it first, or choose another folder`),
      })
    })
    // The backup's work copy went with it, beside the database the server left checkpointed and closed.
    expect(readdirSync(wine.onC(DATA)).sort()).toEqual(['admin-token', 'media', 'storefront.db'])
  }, limit(180_000))

  test('a first start that cannot listen (the port is taken) says so in one line and takes back the folder it made', async () => {
    const wine = await windows()
    const taken = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('the port is mine') })
    const fresh = `${HOME}\\Nova pasta ç`
    try {
      const refused = await command(wine, ['--data', fresh, '--host', '127.0.0.1', '--port', String(taken.port)])
      expect([refused.code, refused.stderr]).toEqual([2, `storefront: --port / PORT: port ${taken.port} on 127.0.0.1 is already in use; pick another port\n`])
    } finally {
      taken.stop(true)
    }
    // Windows deletes no file a process holds open: the database had to be closed for good first.
    expect(existsSync(wine.onC(fresh))).toBe(false)
  }, limit(120_000))

  test('with the server stopped: a backup of its folder, restored into a new folder, starts with the class\'s store, order and pictures', async () => {
    const wine = await windows()
    const lesson = made
    if (!lesson) throw new Error('the first test did not get as far as making the store')
    const file = `${HOME}\\aula.tar.gz`
    const backup = await command(wine, ['backup', file, '--data', DATA])
    expect([backup.code, backup.stderr, backup.stdout]).toEqual([0, '', `backup of ${DATA} written to ${file} (${BACKUP_ENTRIES} entries)\n`])
    expect(readdirSync(wine.onC(DATA)).sort()).toEqual(['admin-token', 'media', 'storefront.db'])

    const restored = `${HOME}\\Restaurado ção`
    const restore = await command(wine, ['restore', file, '--data', restored])
    expect([restore.code, restore.stderr, restore.stdout]).toEqual([0, '', `restored ${file} into ${restored}\na backup holds no admin token: the next start makes a new one and prints it\n`])

    const server = await start(wine, restored)
    await whileRunning(server, async () => {
      const call = overHttp(server.base)
      expect((await expectOk(call('GET', '/v1/products?pageSize=1', { headers: apiKey(lesson.key) }))).total).toBe(lesson.products)
      const order = await expectOk(call('GET', `/v1/store/orders/${lesson.orderId}`, { headers: apiKey(lesson.key) }))
      expect([order.status, order.customer.email]).toEqual(['PAID', 'maria@example.com'])
      const picture = await fetch(`${server.base}${lesson.image}`)
      expect(picture.headers.get('content-type')).toBe('image/png')
      expect(Buffer.from(await picture.arrayBuffer()).equals(readFileSync(join(wine.onC(DATA), ...lesson.image.replace('/v1/files/', 'media/').split('/'))))).toBe(true)
    })
  }, limit(180_000))
})
