/**
 * Things that must happen when the server stops, in reverse order of registration: flushing
 * buffered counters, stopping timers. Tests call stop() too, so no timer outlives its test.
 */
export class Lifecycle {
  private hooks: (() => void | Promise<void>)[] = []
  private streamEnds: (() => void)[] = []

  /**
   * Ends answers that never end by themselves (live streams). The server's graceful stop waits for every
   * open answer, so these end first, before it (endStreams), or a stop with a panel tab open would hang.
   */
  onEndStreams(hook: () => void) {
    this.streamEnds.push(hook)
  }

  endStreams() {
    for (const hook of this.streamEnds.splice(0)) hook()
  }

  onStop(hook: () => void | Promise<void>) {
    this.hooks.push(hook)
  }

  async stop() {
    for (const hook of this.hooks.splice(0).reverse()) await hook()
  }
}
