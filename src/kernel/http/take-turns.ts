/**
 * Runs costly synchronous work (parsing a large body) one job at a time, each job started from a fresh
 * turn of the event loop, so that requests arriving meanwhile are answered between two jobs instead of
 * waiting behind all of them. Twenty one-megabyte bodies at once then delay a /health by one job, not twenty.
 */
export class TakeTurns {
  private waiting: (() => void)[] = []
  private busy = false

  async run<T>(work: () => T): Promise<T> {
    await new Promise<void>((resolve) => {
      this.waiting.push(resolve)
      if (!this.busy) this.next()
    })
    try {
      return work()
    } finally {
      this.busy = false
      this.next()
    }
  }

  private next() {
    const resolve = this.waiting.shift()
    if (!resolve) return
    this.busy = true
    setImmediate(resolve)
  }
}
