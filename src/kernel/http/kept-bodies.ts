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
 * Bound: `maxBytes` bytes of bodies, dropped oldest first, except that a body read since it was last
 * looked at gets a second chance (it moves to the newest end, marked unread): a hit only marks its
 * entry, where moving it in the Map on a read cost a cached product detail 7 % of its time
 * (bench/README.md, "Measurements behind design choices").
 */
export class KeptBodies {
  /** In the order they were made or last given a second chance; `read` is set by a hit. */
  private entries = new Map<string, { body: Uint8Array; scope: string; tags: readonly string[]; read: boolean }>()
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
    if (hit !== undefined) {
      hit.read = true
      return hit.body
    }
    const made = make()
    const body = encoder.encode(JSON.stringify(made.body))
    const tags = made.tags ?? []
    this.entries.set(entryKey, { body, scope, tags, read: false })
    this.bytes += body.byteLength
    kept.keys.add(entryKey)
    for (const tag of tags) {
      const keys = kept.tagged.get(tag)
      if (keys) keys.add(entryKey)
      else kept.tagged.set(tag, new Set([entryKey]))
    }
    // A Map's iteration reaches the entries moved to its end too, unread by then: this ends.
    for (const [oldKey, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      if (entry.read) {
        entry.read = false
        this.entries.delete(oldKey)
        this.entries.set(oldKey, entry)
      } else this.remove(oldKey)
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
