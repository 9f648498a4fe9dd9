/** Time is injected so that expiry and retries are testable without sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock that only moves when told to; for tests and deterministic seeding. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now() {
    return this.ms
  }
  advance(ms: number) {
    this.ms += ms
  }
  set(ms: number) {
    this.ms = ms
  }
}

export const isoTime = (ms: number) => new Date(ms).toISOString()
