/** Time is injected so that expiry and retries are testable without sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /**
   * The IANA time zone whose calendar the class's days follow ("today" on the board and the overview,
   * per-day counts, a date alone in a query): the machine's own, which `TZ` sets (docs/teacher.md, Configuration).
   */
  readonly timeZone: string
}

let machineZone: string | undefined
export const systemClock: Clock = {
  now: () => Date.now(),
  /**
   * This machine's time zone (the `TZ` variable's, when set to one the runtime knows), UTC when it has
   * none. Read on first use: the runtime's time zone data is not loaded on the way to a first answer.
   */
  get timeZone() {
    return (machineZone ??= Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC')
  },
}

/** A clock that only moves when told to; for tests and deterministic seeding. Its days are UTC days unless told. */
export class ManualClock implements Clock {
  constructor(
    private ms = Date.UTC(2026, 0, 1),
    public timeZone = 'UTC',
  ) {}
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

const DAY = 86_400_000

const readers = new Map<string, Intl.DateTimeFormat>()

/** What the clocks of `timeZone` read at the whole second `ms`, written as that reading's UTC milliseconds. */
function wallClock(ms: number, timeZone: string): number {
  let reader = readers.get(timeZone)
  if (!reader) {
    const fields = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const
    readers.set(timeZone, (reader = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', ...fields })))
  }
  const part: Record<string, number> = {}
  for (const p of reader.formatToParts(ms)) part[p.type] = Number(p.value)
  return Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!)
}

const wholeSecond = (ms: number) => Math.floor(ms / 1000) * 1000
const offsetAt = (ms: number, timeZone: string) => wallClock(wholeSecond(ms), timeZone) - wholeSecond(ms)

/**
 * The instant at which the clocks of `timeZone` read `wall` (a reading written as UTC milliseconds, as
 * Date.parse reads a date, or a date-time without an offset, followed by 'Z'). A reading the clocks
 * skip (a daylight-saving jump) is moved forward by the jump, as Temporal's "compatible" reads it:
 * 02:30 where 02:00 jumps to 03:00 is 03:30, and a skipped midnight the first instant after the jump.
 */
export function instantOf(wall: number, timeZone: string): number {
  const guess = wall - offsetAt(wall, timeZone)
  const exact = wall - offsetAt(guess, timeZone)
  return wallClock(wholeSecond(exact), timeZone) === wholeSecond(wall) ? exact : Math.max(guess, exact)
}

const startOfWallDay = (wall: number) => wall - (((wall % DAY) + DAY) % DAY)

/** The calendar day of `timeZone` that `ms` falls in: `[from, to)`, 23 to 25 hours across a daylight-saving change. */
export function calendarDay(ms: number, timeZone: string): { from: number; to: number } {
  const midnight = startOfWallDay(wallClock(wholeSecond(ms), timeZone))
  return { from: instantOf(midnight, timeZone), to: instantOf(midnight + DAY, timeZone) }
}

/** The calendar day of the clock's zone that `now` falls in, and as an answer writes it (kernel/day-schema.ts, todaySchema). */
export function today(clock: Clock, now: number) {
  const day = calendarDay(now, clock.timeZone)
  return { ...day, shown: { from: isoTime(day.from), to: isoTime(day.to), timeZone: clock.timeZone } }
}

/**
 * The starts of the calendar days of `timeZone` from the one holding `from` to the one holding
 * `to - 1`, and the end of the last; it stops past `max` days (the caller refuses so many).
 */
export function calendarDays(from: number, to: number, timeZone: string, max: number): { starts: number[]; end: number } {
  const first = calendarDay(from, timeZone)
  const starts = [first.from]
  let end = first.to
  // Day by day on the wall calendar, never from an instant, which a jump may have moved into the day before.
  let midnight = startOfWallDay(wallClock(wholeSecond(end), timeZone))
  while (end < to && starts.length <= max) {
    starts.push(end)
    midnight += DAY
    end = instantOf(midnight, timeZone)
  }
  return { starts, end }
}
