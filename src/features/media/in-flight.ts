import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'

/**
 * How many uploads one store may have running at once. Each running upload holds a connection and a
 * file being written; two let a page send a picture while a video is still on its way, and keep a loop
 * that fires every file of a folder at once from filling the disk before any of them is refused.
 */
export const UPLOADS_AT_ONCE = 2

/** What the upload operations' descriptions say of the rule, for the OpenAPI document. */
export const UPLOADS_RULE = `A store runs at most ${UPLOADS_AT_ONCE} uploads at once (POST /v1/uploads and POST /v1/products/:id/media together): one more, sent while ${UPLOADS_AT_ONCE} are running, is refused at once with 409 LIMIT_REACHED; wait for one of them to finish, then send it again. It is a 409 and not a 429 because nothing was sent too often: the store has as many uploads running as it may, and no waiting time is known in advance. Uploads still running count against the quota: one that declares its size (a Content-Length, as browsers and curl send) from its start, one sent in chunks as its bytes arrive. So of uploads sent together that do not all fit, the ones that do not get 413 QUOTA_EXCEEDED, the later ones first. An upload running when the teacher resets the store is 409 CONFLICT at its next piece and keeps nothing: send it again.`

/** A store's uploads in flight: how many, the bytes they have taken in so far, and its library's bytes. */
interface StoreUploads {
  uploads: number
  reserved: number
  /** The bytes of the store's recorded files, read when an upload begins and kept current as uploads land. */
  used: number
  /** The store was reset while these uploads ran (`forget`): none of them may record its file. */
  forgotten?: true
}

/**
 * The uploads each store has running, in memory, so that bytes still arriving count against the store's
 * quota: a file's bytes are reserved before they are written, and what is on disk for a store is never
 * more than its quota. An entry lives while its store has an upload running (at most UPLOADS_AT_ONCE
 * each); nothing of it needs to outlive the process, since an upload does not outlive its request.
 */
export class UploadsInFlight {
  private readonly stores = new Map<string, StoreUploads>()

  /**
   * Takes one of the store's slots, or refuses at once, before the body is read. `usedNow` reads the
   * bytes the store's library holds; it is read again before a reservation is refused, since a file
   * deleted meanwhile may have made room.
   */
  begin(storeId: string, quota: number, usedNow: () => number): Upload {
    const entry = this.stores.get(storeId) ?? { uploads: 0, reserved: 0, used: 0 }
    if (entry.uploads >= UPLOADS_AT_ONCE) {
      // 409 LIMIT_REACHED rather than 429 RATE_LIMITED: nothing was sent too often, and no number of
      // seconds would be true in a Retry-After; the store has as many uploads running as it may, like a
      // live stream past its slots, and this one may start as soon as one of them ends.
      throw new AppError(
        'LIMIT_REACHED',
        `This store already has ${UPLOADS_AT_ONCE} uploads running, the most it may have at once. Wait for one of them to finish, then send this file again (send files one after the other, not all at once).`,
      )
    }
    entry.used = usedNow()
    entry.uploads++
    this.stores.set(storeId, entry)
    return new Upload(entry, quota, usedNow, () => {
      if (--entry.uploads === 0 && this.stores.get(storeId) === entry) this.stores.delete(storeId)
    })
  }

  /**
   * The store was reset: the uploads running for it record nothing (Upload.forgotten), and the next
   * ones start afresh, counting the emptied library.
   */
  forget(storeId: string) {
    const entry = this.stores.get(storeId)
    if (!entry) return
    entry.forgotten = true
    this.stores.delete(storeId)
  }

  /** What a store has running now: uploads and the bytes they hold. */
  of(storeId: string): { uploads: number; reservedBytes: number } {
    const entry = this.stores.get(storeId)
    return { uploads: entry?.uploads ?? 0, reservedBytes: entry?.reserved ?? 0 }
  }
}

/** One running upload's hold on its store's slot and on the bytes of its file. */
export class Upload {
  /** The bytes reserved for this upload's file: those taken in so far, or more when its size was declared. */
  private held = 0
  /** The bytes of this upload's file taken in so far. */
  private taken = 0
  private ended = false

  constructor(
    private readonly entry: StoreUploads,
    private readonly quota: number,
    private readonly usedNow: () => number,
    private readonly free: () => void,
  ) {}

  /** Whether the store was reset while this upload ran: its file may not be recorded. */
  get forgotten(): boolean {
    return this.entry.forgotten === true
  }

  /** The largest file this upload may still become: the quota less the library and the other uploads' bytes. */
  room(): number {
    return this.quota - this.entry.used - (this.entry.reserved - this.held)
  }

  /**
   * Reserves `bytes` before any arrive, for a file whose size the request declared: of uploads sent
   * together, each is then judged whole in the order they came, rather than all cut partway as their
   * bytes arrive side by side. False when they do not fit.
   */
  reserveAhead(bytes: number): boolean {
    if (this.held + bytes > this.room()) {
      this.entry.used = this.usedNow()
      if (this.held + bytes > this.room()) return false
    }
    this.held += bytes
    this.entry.reserved += bytes
    return true
  }

  /** Takes in the next `bytes` of the file before they are written, reserving them unless they were; false when they do not fit, or the store was reset. */
  reserve(bytes: number): boolean {
    // The store was reset: nothing of this upload is kept, so it stops here rather than at its end.
    if (this.forgotten) return false
    this.taken += bytes
    return this.taken <= this.held || this.reserveAhead(this.taken - this.held)
  }

  /** The file is recorded in the library (in the same turn, so no other upload sees its bytes twice or not at all). */
  landed() {
    this.entry.used += this.taken
    this.end()
  }

  /** Gives back the slot and whatever is still reserved; once is enough, and again does nothing. */
  end() {
    if (this.ended) return
    this.ended = true
    this.entry.reserved -= this.held
    this.held = 0
    this.free()
  }
}

/** What receiving an upload needs beyond the kernel: the uploads in flight, built once in src/wiring.ts. */
export type UploadDeps = Deps & { uploads: UploadsInFlight }
