/** Opens a live stream of the inspector through app.handle and reads its events as they come. */
export async function openStream(app: { handle(request: Request): Promise<Response> }, path: string, headers: Record<string, string>) {
  const abort = new AbortController()
  const response = await app.handle(new Request(`http://localhost:3000${path}`, { headers, signal: abort.signal }))
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  return {
    response,
    /** The next `event: request`, parsed. */
    async next(): Promise<{ id: string; data: any }> {
      for (;;) {
        const end = buffered.indexOf('\n\n')
        if (end >= 0) {
          const block = buffered.slice(0, end)
          buffered = buffered.slice(end + 2)
          if (!block.startsWith('event: request')) continue
          const lines = Object.fromEntries(block.split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]))
          return { id: lines.id!, data: JSON.parse(lines.data!) }
        }
        const { value, done } = await reader.read()
        if (done) throw new Error('the stream ended')
        buffered += value
      }
    },
    close: async () => {
      await reader.cancel()
      abort.abort()
    },
  }
}
