/**
 * Things that must happen when the server stops, in reverse order of registration: flushing
 * buffered counters, stopping timers. Tests call stop() too, so no timer outlives its test.
 */
export class Lifecycle {
  private hooks: (() => void | Promise<void>)[] = []

  onStop(hook: () => void | Promise<void>) {
    this.hooks.push(hook)
  }

  async stop() {
    for (const hook of this.hooks.splice(0).reverse()) await hook()
  }
}
