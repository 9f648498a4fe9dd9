/**
 * Browser tests of the panel: the real server from source on a free loopback port with a fresh data
 * folder, driven by a real headless Chromium (Debian's `chromium`, through playwright-core).
 *
 *   const panel = usePanel()                  // at the top of a test file: started before, closed after
 *   await panel.withPage('teacher creates a group', async (page) => { ... })
 *
 * Tests find things by role, label and text (getByRole/getByLabel/getByText), as a keyboard or
 * screen-reader user would, so each test also checks that the screen is labelled. A failing test
 * leaves a full-page screenshot in test/panel/screenshots/<test name>.png.
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'bun:test'
import { chromium, type Browser, type BrowserContextOptions, type BrowserServer, type Page } from 'playwright-core'
import { ADMIN_TOKEN } from '../helpers/app'
import { trackGroup } from '../helpers/children'
import { emptyDir, overHttp, SOURCE_SERVER, startExecutable, type Running } from '../helpers/executable'
import { activeStudent, bearer, createGroup } from '../helpers/world'

export const SCREENSHOTS = join(import.meta.dir, 'screenshots')

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/**
 * Only a developer's machine without Chromium may skip the browser tests (a student's laptop running
 * `npm test`); CI installs it (.ci/run), so there a missing browser fails them instead.
 */
export const noBrowser = !existsSync(CHROMIUM) && !process.env.CI
if (noBrowser) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM} (install Debian's chromium package, or set CHROMIUM_PATH)`)

/** What a page may wait for before a step fails: well under the test's own limit, so the screenshot is taken. */
const STEP_TIMEOUT = 10_000

const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
]

/**
 * How many pixels the page reaches past the window's width: what a phone would scroll sideways. Against
 * the document's client width: an emulated phone's innerWidth grows with whatever overflows, so a check
 * against it could not fail.
 */
export const sidewaysOverflow = async (page: Page) => {
  const [scroll, client] = (await page.evaluate('[document.documentElement.scrollWidth, document.documentElement.clientWidth]')) as [number, number]
  return scroll - client
}

/** A phone in portrait, for the "readable on a phone" checks. */
export const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }

export interface Panel {
  server: Running
  browser: Browser
  /** `http://127.0.0.1:<port>` */
  base: string
  /** The panel's address, optionally with a hash route: `panel.url('/teacher')`. */
  url(route?: string): string
  /** The admin token the server was started with (the same as test/helpers/app.ts's ADMIN_TOKEN). */
  adminToken: string
  /** test/helpers/app.ts's `caller`, over real HTTP to this server: `panel.call('GET', '/v1/...', { headers })`. */
  call: ReturnType<typeof overHttp>
  /**
   * Runs `body` on a fresh page in a fresh browser context (its own sessionStorage and downloads).
   * On failure it saves a full-page screenshot named after `name`, adds the page's console errors
   * to the message, and rethrows.
   */
  withPage(name: string, body: (page: Page) => Promise<void>, options?: BrowserContextOptions): Promise<void>
  close(): Promise<void>
}

export async function startPanel(extraArgs: string[] = [], env: Record<string, string> = {}): Promise<Panel> {
  const dir = emptyDir()
  const server = await startExecutable(SOURCE_SERVER, dir, ['--data', join(dir, 'data'), '--admin-token', ADMIN_TOKEN, '--rate-limit-rps', '0', ...extraArgs], env)
  let browser: Browser
  let browserServer: BrowserServer | undefined
  try {
    // Started as a server, not with launch(), for its process: in the registry of the test's children,
    // Chromium is killed with its renderers when the test file ends or dies, like every other child.
    browserServer = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 30_000 })
    trackGroup(browserServer.process())
    browser = await chromium.connect(browserServer.wsEndpoint(), { timeout: 30_000 })
  } catch (e) {
    await browserServer?.close().catch(() => {})
    await server.stop()
    throw e
  }
  const base = server.base
  return {
    server,
    browser,
    base,
    url: (route = '') => `${base}/panel${route ? `#${route}` : ''}`,
    adminToken: ADMIN_TOKEN,
    call: overHttp(base),
    async withPage(name, body, options = {}) {
      const context = await browser.newContext({ acceptDownloads: true, ...options })
      const page = await context.newPage()
      page.setDefaultTimeout(STEP_TIMEOUT)
      const problems: string[] = []
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
      page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`))
      try {
        await body(page)
      } catch (e) {
        const file = join(SCREENSHOTS, `${name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-|-$/g, '').slice(0, 120)}.png`)
        try {
          mkdirSync(SCREENSHOTS, { recursive: true })
          await page.screenshot({ path: file, fullPage: true, timeout: 5_000 })
          problems.unshift(`screenshot: ${file}`)
        } catch (shot) {
          problems.unshift(`no screenshot: ${(shot as Error).message}`)
        }
        if (e instanceof Error) e.message += `\n${problems.map((p) => `  [panel] ${p}`).join('\n')}`
        throw e
      } finally {
        await context.close().catch(() => {})
      }
    },
    async close() {
      await browser.close().catch(() => {})
      await browserServer.close().catch(() => {})
      await server.stop()
    },
  }
}

/**
 * The panel of this test file: started before its tests (unless there is no browser), closed after.
 * The object is filled in place when it starts, so a file can hold on to it from the top. `env` is the
 * server's environment besides the tests' own (TZ, say).
 */
export function usePanel(extraArgs: string[] = [], env: Record<string, string> = {}): Panel {
  const panel = {} as Panel
  beforeAll(async () => {
    if (!noBrowser) Object.assign(panel, await startPanel(extraArgs, env))
  })
  afterAll(async () => {
    await panel.close?.()
  })
  return panel
}

/**
 * Retries `check` (which throws, e.g. a bun `expect`) until it passes or `timeout` ms go by; for
 * values that change after a refresh (playwright-core has no `expect` of its own).
 */
export async function eventually<T>(check: () => T | Promise<T>, timeout = STEP_TIMEOUT): Promise<T> {
  const deadline = Date.now() + timeout
  for (;;) {
    try {
      return await check()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await Bun.sleep(100)
    }
  }
}

/** Signs the teacher in on the panel's teacher screen. */
export async function signInAsTeacher(page: Page, panel: Panel, route = '/teacher') {
  await page.goto(panel.url(route))
  await page.getByLabel('Admin token').fill(panel.adminToken)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/** Signs a student in on the panel's student screen (the route's screen shows once signed in). */
export async function signInAsStudent(page: Page, panel: Panel, rm: string, password: string, route = '/store') {
  await page.goto(panel.url(route))
  await page.getByLabel('RM').fill(rm)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
}

/**
 * A new group with one member who has replaced the initial password (the RM) with `password`, as a
 * student does first: the group's id, the student's token and the headers that carry it.
 */
export async function groupWithStudent(panel: Panel, group: string, member: { rm: string; name: string }, password: string) {
  const made = await createGroup(panel.call, group, [member])
  const token = await activeStudent(panel.call, member.rm, password)
  return { groupId: made.id as string, token, student: bearer(token) }
}
