/** A message of a listen stream: its event name, id (when it has one) and data, parsed. */
export interface ListenMessage {
  event: string
  id: string | undefined
  data: any
}

/** Opens GET /v1/webhooks/listen through app.handle and reads its messages as they come (heartbeats skipped). */
export async function openListen(app: { handle(request: Request): Promise<Response> }, headers: Record<string, string>, query = '') {
  const abort = new AbortController()
  const response = await app.handle(new Request(`http://localhost:3000/v1/webhooks/listen${query}`, { headers, signal: abort.signal }))
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  /** A read started by nothingMore and not finished: the next read takes its place. */
  let reading: Promise<boolean> | undefined
  const read = () =>
    (reading ??= reader.read().then(({ value, done }) => {
      reading = undefined
      buffered += value ?? ''
      return !done
    }))
  const stream = {
    response,
    async next(): Promise<ListenMessage> {
      for (;;) {
        const end = buffered.indexOf('\n\n')
        if (end >= 0) {
          const block = buffered.slice(0, end)
          buffered = buffered.slice(end + 2)
          if (block.startsWith(':')) continue
          const fields = Object.fromEntries(block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]))
          return { event: fields.event!, id: fields.id, data: JSON.parse(fields.data!) }
        }
        if (!(await read())) throw new Error('the stream ended')
      }
    },
    /** The next `n` webhook messages (failing on any other kind). */
    async webhooks(n: number): Promise<ListenMessage[]> {
      const got: ListenMessage[] = []
      while (got.length < n) {
        const m = await stream.next()
        if (m.event !== 'webhook') throw new Error(`expected a webhook message, got ${m.event}: ${JSON.stringify(m.data)}`)
        got.push(m)
      }
      return got
    },
    /** Whether a message is waiting, without waiting for one longer than a few turns of the event loop. */
    async nothingMore(): Promise<boolean> {
      const quiet = Bun.sleep(50).then(() => 'quiet' as const)
      for (;;) {
        const got = await Promise.race([read(), quiet])
        if (got !== true) break
      }
      return !buffered.replace(/^:[^\n]*\n\n/gm, '').includes('\n\n')
    },
    close: async () => {
      await reader.cancel().catch(() => {})
      abort.abort()
    },
  }
  return stream
}
