import type { Command } from 'commander'
import { attempt, signedHeaders } from '../features/webhooks'
import { printable } from '../kernel/control-characters'
import { VERSION } from '../version'
import { CliFailure } from './jobs'

// `storefront listen`: the student's side of GET /v1/webhooks/listen. It opens the stream from the
// student's machine, so the teacher's server never has to reach the laptop, and POSTs each event to the
// app exactly as a delivery would: the same body bytes and headers, signed with the same code
// (features/webhooks/signature.ts), with the store's listen secret. docs/webhooks.md.

/** Waits between reconnections: doubled after each failure, back to the first once a stream is ready. */
const FIRST_WAIT_MS = 1000
const LAST_WAIT_MS = 30_000
/** No byte for this long (the server sends a heartbeat every 15 s) means the connection is dead. */
const SILENCE_MS = 45_000

/** What a proxy answers while the server behind it is away. */
const GATEWAY_AWAY = new Set([502, 503, 504])

const KEY_HELP = "listen takes your store's secret key (sk_...) or a student token (stu_..., from logging in)"

export interface ListenOptions {
  server: string
  key: string
  forwardTo: string
  events?: string
}

export function addListenCommand(program: Command) {
  program
    .command('listen')
    .description(
      "forward your store's webhook events to your app on this machine, over a connection this machine opens: no certificate, firewall rule or fixed address needed",
    )
    .requiredOption('--server <url>', "the class's Storefront server, e.g. http://192.168.0.10:3000")
    .requiredOption('--key <key>', "your store's secret key (sk_...) or a student token (stu_...)")
    .requiredOption('--forward-to <url>', 'where your app receives webhooks, e.g. http://localhost:5173/webhooks')
    .option('--events <names>', 'only these events, comma-separated, e.g. order.paid,order.cancelled (default: all)')
    .addHelpText(
      'after',
      `
It prints the store's listen secret (whsec_...) once connected: give it to your app to verify signatures.
Each event is POSTed to --forward-to as a delivery would be (same body, X-Webhook-Id, X-Webhook-Event,
X-Timestamp, X-Signature: sha256=HMAC-SHA256 of "<timestamp>.<body>" with that secret), and one line
shows its time, type, id and your app's answer. When the connection drops it reconnects by itself and
gets the events it missed meanwhile.

Example:
  storefront listen --server http://192.168.0.10:3000 --key sk_... --forward-to http://localhost:5173/webhooks --events order.paid`,
    )
    .action((options: ListenOptions) => listen(options))
}

function urlOption(name: string, value: string, example: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new CliFailure([`${name}: '${value}' is not a URL; write it in full, e.g. ${example}`], 2)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliFailure([`${name}: the URL must start with http:// or https://`], 2)
  return url
}

/** One Server-Sent Events message. */
interface Message {
  event: string
  id: string | undefined
  data: string
}

/** The messages of an SSE body, one at a time; comments (heartbeats) only reset the silence check. */
async function* messages(body: ReadableStream<Uint8Array>, alive: () => void): AsyncGenerator<Message> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      alive()
      buffered += value.replace(/\r\n?/g, '\n')
      let end: number
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        const message: Message = { event: 'message', id: undefined, data: '' }
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line === '' || line.startsWith(':')) continue
          const colon = line.indexOf(':')
          const field = colon < 0 ? line : line.slice(0, colon)
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (field === 'event') message.event = value
          else if (field === 'id') message.id = value
          else if (field === 'data') data.push(value)
        }
        if (data.length === 0) continue
        message.data = data.join('\n')
        yield message
      }
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

const clock = () => {
  const d = new Date()
  const two = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`
}

const say = (line: string) => process.stdout.write(`${line}\n`)

/** The error envelope's message, or the status alone. */
async function serverMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '')
  try {
    const { error } = JSON.parse(text) as { error?: { code?: string; message?: string } }
    if (error?.message) return `${response.status} ${error.code ?? ''}: ${error.message}`
  } catch {
    // not the envelope
  }
  return `the server answered ${response.status}`
}

/** Runs until the process is stopped; throws a CliFailure for what retrying cannot fix. */
export async function listen(options: ListenOptions): Promise<never> {
  const server = urlOption('--server', options.server, 'http://192.168.0.10:3000')
  const forwardTo = urlOption('--forward-to', options.forwardTo, 'http://localhost:5173/webhooks')
  const key = options.key.trim()
  const stream = new URL('/v1/webhooks/listen', server)
  if (options.events !== undefined) stream.searchParams.set('events', options.events)
  const credential: Record<string, string> = key.startsWith('stu_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key }
  const userAgent = `Storefront-Webhooks/${VERSION}`
  const never = new AbortController().signal

  let secret: string | undefined
  let lastEventId: string | undefined
  let wait = FIRST_WAIT_MS
  let connected = false
  const retry = async (why: string) => {
    say(`${clock()}  ${printable(why)}; connecting again in ${wait / 1000} s`)
    await Bun.sleep(wait)
    wait = Math.min(wait * 2, LAST_WAIT_MS)
  }

  for (;;) {
    const abort = new AbortController()
    let silence: ReturnType<typeof setTimeout> | undefined
    const alive = () => {
      clearTimeout(silence)
      silence = setTimeout(() => abort.abort(new Error(`nothing heard from the server for ${SILENCE_MS / 1000} s`)), SILENCE_MS)
    }
    let response: Response
    try {
      alive()
      response = await fetch(stream, { headers: { ...credential, accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal: abort.signal })
    } catch (e) {
      clearTimeout(silence)
      await retry(`cannot reach ${server.origin} (${(e as Error).message})`)
      continue
    }
    // Every answer of Storefront carries X-Request-Id, and the stream is text/event-stream: anything else
    // is another server (--server and --forward-to swapped, a wrong port), which retrying never fixes.
    // Unless the stream was there before, or a proxy in front of the server says its server is away (a
    // 502, 503 or 504): then the server is restarting, and it is retried like a refused connection.
    const type = response.headers.get('content-type') ?? ''
    const storefront = response.headers.has('x-request-id') && (!response.ok || type.startsWith('text/event-stream'))
    if (!storefront) {
      clearTimeout(silence)
      void response.body?.cancel()
      if (connected || GATEWAY_AWAY.has(response.status)) {
        await retry(`the server answered ${response.status}`)
        continue
      }
      throw new CliFailure([
        `${server.origin} does not look like a Storefront server: GET ${stream.pathname} answered ${response.status}${type ? ` (${type.split(';')[0]})` : ''}. --server is the class's Storefront (for example http://192.168.0.10:3000), --forward-to your app`,
      ])
    }
    if (response.status === 401) throw new CliFailure([`the server refused the key: ${await serverMessage(response)}`, `${KEY_HELP}; check that you copied all of it`])
    if (response.status === 403) throw new CliFailure([await serverMessage(response), `${KEY_HELP}, never the publishable key (pk_...): whoever holds the listen secret could forge your store's events`])
    // A wrong event name or URL is no better later; a full store is, once a stream it had is let go.
    if (response.status === 400 || response.status === 404 || (response.status === 409 && !connected)) {
      throw new CliFailure([await serverMessage(response)])
    }
    if (!response.ok || !response.body) {
      clearTimeout(silence)
      await retry(await serverMessage(response))
      continue
    }
    let why = 'the server closed the connection'
    try {
      for await (const message of messages(response.body, alive)) {
        if (message.id !== undefined) lastEventId = message.id
        const data = JSON.parse(message.data)
        if (message.event === 'ready') {
          wait = FIRST_WAIT_MS
          if (!connected) say(`Ready! Forwarding to ${printable(forwardTo.href)}. Your webhook signing secret is ${printable(data.signingSecret)} (Ctrl-C to stop)`)
          else if (data.signingSecret === secret) say(`${clock()}  connected again`)
          else say(`${clock()}  connected again; the signing secret is now ${printable(data.signingSecret)}`)
          secret = data.signingSecret
          connected = true
        } else if (message.event === 'gap') {
          say(`${clock()}  ${printable(String(data.message))}`)
        } else if (message.event === 'webhook' && secret) {
          say(await forward(forwardTo, secret, { id: message.id ?? '', type: String(data.type) }, String(data.body), userAgent, never))
        }
      }
    } catch (e) {
      why = abort.signal.aborted ? (abort.signal.reason as Error).message : `the connection broke (${(e as Error).message})`
    } finally {
      clearTimeout(silence)
    }
    await retry(why)
  }
}

/** POSTs one event as a delivery would, and describes the answer on one line. */
async function forward(to: URL, secret: string, event: { id: string; type: string }, body: string, userAgent: string, stop: AbortSignal): Promise<string> {
  const { headers } = signedHeaders(secret, event, body, Date.now(), userAgent)
  // The student's own machine calling itself: any address the URL names, loopback and http:// included.
  const result = await attempt({ headers, body, target: async () => ({ url: to, addresses: [to.hostname.replace(/^\[(.*)\]$/, '$1')] }), stop })
  const answer = result.responseStatus !== null ? `${result.responseStatus} in ${result.durationMs} ms` : `failed: ${result.error}`
  return `${clock()}  ${printable(event.type)}  ${printable(event.id)}  ${printable(answer)}`
}
