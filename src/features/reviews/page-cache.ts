import type { ChangeStamp } from '../../kernel/db/change-stamp'
import type { Db } from '../../kernel/db/database'
import { perHandle } from '../../kernel/db/per-handle'
import type { Deps } from '../../kernel/deps'
import { KeptBodies } from '../../kernel/http/kept-bodies'
import type { JsonBody } from '../../kernel/http/json-response'
import { storeVersions } from '../catalog'

/**
 * The finished bodies of products' review pages, kept per store while the store's `reviews` version
 * stays. Triggers raise it on every change such a page shows, whichever feature makes it: a review, its
 * photos or their files, a reviewer's name, the product's rating or the product itself
 * (migrations/0013_review_page_versions.sql). A page is made right after the version is read, in one
 * synchronous step, so it always belongs to that version. Bound: 8 MiB of bodies, least recently
 * used first (docs/caches.md).
 */
export class ReviewPageCache {
  private readonly bodies = new KeptBodies(8 * 1024 * 1024)
  private readonly versionsOf
  /** How many pages were made (not served from the cache), for tests. */
  made = 0

  constructor(
    private readonly db: Db,
    changes: ChangeStamp,
  ) {
    this.versionsOf = storeVersions(db, changes)
  }

  /**
   * The page for `key` of this store, with its photos' URLs on `urlBase`: from the cache, or made by
   * `render` (which may throw) and kept. A page is kept per URL base, so an answer never carries the
   * URLs of another Host's request (kernel/http/url-base.ts).
   */
  read(storeId: string, urlBase: string, key: string, render: () => unknown): JsonBody {
    // Inside a transaction what is read could still be rolled back: the cache stays out.
    if (this.db.$client.inTransaction) return JSON.stringify(render())
    return this.bodies.read(storeId, this.versionsOf(storeId).reviews, `${key}\u0000${urlBase}`, () => {
      this.made++
      return { body: render() }
    })
  }
}

/** The app's one cache of review pages (one per set of deps, so a test can look at it). */
export const reviewPageCache = perHandle((deps: Deps) => new ReviewPageCache(deps.db, deps.changes))
