import { AppError } from '../../kernel/errors'
import { CHUNK } from './stored'

/**
 * How many files larger than one read (stored.ts, CHUNK) one client address may be downloading at once.
 * A browser opens at most 6 connections to a server; a lab behind one address shares its 64.
 */
export const DOWNLOADS_PER_ADDRESS = 64

/** How many such downloads the server runs at once, all addresses together: each holds an open file. */
export const DOWNLOADS_AT_ONCE = 1024

/** What the file operation's description says of the rule, for the OpenAPI document. */
export const DOWNLOADS_RULE = `A file larger than ${CHUNK / 1024} KiB is sent as the client reads it, holding an open file until it ends: one client address may have ${DOWNLOADS_PER_ADDRESS} such downloads running at once, the server ${DOWNLOADS_AT_ONCE}. One more is refused at once with 409 LIMIT_REACHED; it may be asked again as soon as one of them ends (a client that stops reading is let go after 30 s).`

/**
 * The downloads running now, by client address. A client that opens connections and never reads held
 * a file and its read buffer on each (12,000 of them: 3 GB of memory and 12,000 open files, near the
 * process's limit); the two bounds keep that to a few hundred MiB and files the server can spare.
 */
export class Downloads {
  private readonly byAddress = new Map<string, number>()
  private total = 0

  /** Takes a slot for `address`, or refuses; the returned function gives it back (once, whoever calls it). */
  begin(address: string): () => void {
    const running = this.byAddress.get(address) ?? 0
    if (running >= DOWNLOADS_PER_ADDRESS || this.total >= DOWNLOADS_AT_ONCE) {
      const who = running >= DOWNLOADS_PER_ADDRESS ? `This address already has ${running} files downloading` : `The server already has ${this.total} files downloading`
      throw new AppError('LIMIT_REACHED', `${who}, the most it may have at once. Wait for one of them to finish (or close the ones not read), then ask again.`)
    }
    this.byAddress.set(address, running + 1)
    this.total++
    let ended = false
    return () => {
      if (ended) return
      ended = true
      this.total--
      const left = (this.byAddress.get(address) ?? 1) - 1
      if (left === 0) this.byAddress.delete(address)
      else this.byAddress.set(address, left)
    }
  }

  /** Downloads running now: in all, and for one address. */
  running(address?: string): number {
    return address === undefined ? this.total : (this.byAddress.get(address) ?? 0)
  }
}
