import type { Clock } from '../../kernel/clock'
import { AppError } from '../../kernel/errors'
import { CHUNK } from './stored'

/**
 * How many files larger than one read (stored.ts, CHUNK) one client address may be downloading at once.
 * A browser opens at most 6 connections to a server; a lab behind one address shares its 64.
 */
export const DOWNLOADS_PER_ADDRESS = 64

/** How many such downloads the server runs at once, all addresses together: each holds an open file. */
export const DOWNLOADS_AT_ONCE = 1024

/**
 * A download whose client has taken nothing for this long is stalled: when the slots are full, the one
 * stalled longest is stopped to make room, so that clients that never read cannot keep the files from
 * the ones that do (a paused video's browser asks again for the rest when it needs it). The stream is
 * asked for more only once the client has drained about half the connection's send buffer (3.8 MiB on
 * Linux's loopback): at 10 s a client reading 64 KB/s, a small video's pace, was stopped as stalled; at
 * 30 s one reading 64 KB/s or more is not.
 */
export const STALLED_MS = 30_000

/** What the file operation's description says of the rule, for the OpenAPI document. */
export const DOWNLOADS_RULE = `A file larger than ${CHUNK / 1024} KiB is sent as the client reads it, holding an open file until it ends: one client address may have ${DOWNLOADS_PER_ADDRESS} such downloads running at once, the server ${DOWNLOADS_AT_ONCE}. When they are all taken, the download whose client has read nothing for the longest, ${STALLED_MS / 1000} s at least, is stopped (its connection closed) to make room; with none such, one more is refused at once with 409 LIMIT_REACHED, and may be asked again as soon as one of them ends.`

/** One download running: its client address and when its client last took a part. */
export interface DownloadSlot {
  /** The client took a part: the download is not stalled. */
  read(): void
  /** Gives the slot back (once, whoever calls it). */
  end(): void
  /** What stopping it does (closes its file, ends its answer, gives the slot back); set by whoever sends it. */
  stop: () => void
}

interface Running extends DownloadSlot {
  readonly address: string
  lastRead: number
}

/**
 * The downloads running now, by client address. A client that opens connections and never reads held
 * a file and its read buffer on each (12,000 of them: 3 GB of memory and 12,000 open files, near the
 * process's limit); the two bounds keep that to a few hundred MiB and files the server can spare, and
 * a full bound stops the longest stalled download rather than refuse one that would be read.
 */
export class Downloads {
  private readonly byAddress = new Map<string, Set<Running>>()
  private readonly all = new Set<Running>()

  constructor(private readonly clock: Clock) {}

  /** Takes a slot for `address`, stopping a stalled download when the slots are full, or refuses (409). */
  begin(address: string): DownloadSlot {
    const own = this.byAddress.get(address)
    if (own && own.size >= DOWNLOADS_PER_ADDRESS && !this.stopStalled(own)) {
      throw this.full(`This address already has ${own.size} files downloading`)
    }
    if (this.all.size >= DOWNLOADS_AT_ONCE && !this.stopStalled(this.all)) {
      throw this.full(`The server already has ${this.all.size} files downloading`)
    }
    const slot: Running = {
      address,
      lastRead: this.clock.now(),
      read: () => {
        slot.lastRead = this.clock.now()
      },
      end: () => this.end(slot),
      stop: () => this.end(slot),
    }
    this.all.add(slot)
    // Read again: stopping a stalled download may have emptied this address's set and dropped it.
    let set = this.byAddress.get(address)
    if (!set) this.byAddress.set(address, (set = new Set()))
    set.add(slot)
    return slot
  }

  /** Downloads running now: in all, and for one address. */
  running(address?: string): number {
    return address === undefined ? this.all.size : (this.byAddress.get(address)?.size ?? 0)
  }

  private end(slot: Running) {
    if (!this.all.delete(slot)) return
    const set = this.byAddress.get(slot.address)!
    set.delete(slot)
    if (set.size === 0) this.byAddress.delete(slot.address)
  }

  /** Stops the download of `among` whose client read last longest ago, if that is STALLED_MS or more; true if one was. */
  private stopStalled(among: Set<Running>): boolean {
    let stalled: Running | undefined
    for (const slot of among) if (!stalled || slot.lastRead < stalled.lastRead) stalled = slot
    if (!stalled || stalled.lastRead > this.clock.now() - STALLED_MS) return false
    stalled.stop()
    this.end(stalled)
    return true
  }

  private full(who: string) {
    return new AppError(
      'LIMIT_REACHED',
      `${who}, the most it may have at once, and every one of them was read from in the last ${STALLED_MS / 1000} s. Wait for one of them to finish (or close the ones not read), then ask again.`,
    )
  }
}
