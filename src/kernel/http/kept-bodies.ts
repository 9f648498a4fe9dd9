const encoder = new TextEncoder()

/**
 * Finished JSON bodies kept per scope (a store) while the scope's version stays the same. The version
 * is one that database triggers raise on every change a body can show (docs/caches.md): the first
 * read that sees another version drops all of the scope's bodies, since nothing can ask for them
 * again. A body may also carry tags (the products it shows), so that a change to one of them drops
 * only the bodies that show it.
 *
 * A body is kept as its UTF-8 bytes, encoded once: answering with a string has the server encode it
 * again for every request, which cost a cached list a quarter of its time (bench/README.md).
 *
 * Bound: `maxBytes` bytes of bodies; the least recently used go first (a body read again lately is not
 * moved on every read, only once it has fallen into the older half: see read).
 */
export class KeptBodies {
  private entries = new Map<string, { body: Uint8Array; scope: string; tags: readonly string[]; used: number }>()
  /** Counts reads: an entry's `used` is the read that last moved it to the newest end. */
  private reads = 0
  private scopes = new Map<string, { version: number; keys: Set<string>; tagged: Map<string, Set<string>> }>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  /**
   * The body kept for `key` in `scope` at `version`, or the one `make` returns (it may throw: then
   * nothing is kept), stringified, encoded and kept: its JSON as UTF-8 bytes, which no caller changes.
   */
  read(scope: string, version: number, key: string, make: () => { body: unknown; tags?: readonly string[] }): Uint8Array {
    const kept = this.scopeAt(scope, version)
    const entryKey = `${scope}\u0000${key}`
    const hit = this.entries.get(entryKey)
    this.reads++
    if (hit !== undefined) {
      // Map keeps insertion order: re-inserting marks the entry as the most recently used. An entry
      // moved there within the last half a map's worth of reads is still in the newer half, past where
      // eviction starts, so it is not moved again.
      if (this.reads - hit.used > this.entries.size / 2) {
        this.entries.delete(entryKey)
        this.entries.set(entryKey, hit)
        hit.used = this.reads
      }
      return hit.body
    }
    const made = make()
    const body = encoder.encode(JSON.stringify(made.body))
    const tags = made.tags ?? []
    this.entries.set(entryKey, { body, scope, tags, used: this.reads })
    this.bytes += body.byteLength
    kept.keys.add(entryKey)
    for (const tag of tags) {
      const keys = kept.tagged.get(tag)
      if (keys) keys.add(entryKey)
      else kept.tagged.set(tag, new Set([entryKey]))
    }
    for (const oldKey of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) break
      this.remove(oldKey)
    }
    return body
  }

  /** Drops the scope's bodies tagged `tag`. */
  dropTagged(scope: string, tag: string) {
    for (const key of this.scopes.get(scope)?.tagged.get(tag) ?? []) this.remove(key)
  }

  /** Drops every body of the scope. */
  dropAll(scope: string) {
    for (const key of this.scopes.get(scope)?.keys ?? []) this.remove(key)
  }

  /** How many bodies are kept, and their bytes. */
  size() {
    return { bodies: this.entries.size, bytes: this.bytes }
  }

  /** The scope's bookkeeping at `version`: bodies of any other version are dropped first. */
  private scopeAt(scope: string, version: number) {
    const known = this.scopes.get(scope)
    if (known?.version === version) return known
    if (known) this.dropAll(scope)
    const fresh = { version, keys: new Set<string>(), tagged: new Map<string, Set<string>>() }
    this.scopes.set(scope, fresh)
    return fresh
  }

  private remove(key: string) {
    const entry = this.entries.get(key)
    if (!entry) return
    this.entries.delete(key)
    this.bytes -= entry.body.byteLength
    const kept = this.scopes.get(entry.scope)!
    kept.keys.delete(key)
    for (const tag of entry.tags) {
      const keys = kept.tagged.get(tag)!
      keys.delete(key)
      if (keys.size === 0) kept.tagged.delete(tag)
    }
  }
}
