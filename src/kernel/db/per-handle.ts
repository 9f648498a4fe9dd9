/**
 * Statements prepared once per database handle: `build` runs on a handle's first use and its result is
 * kept for as long as the handle lives (a WeakMap, so a closed test database takes them with it).
 * drizzle and bun:sqlite both build a statement's SQL anew when asked; hot paths ask this instead.
 */
export function perHandle<H extends object, T>(build: (handle: H) => T): (handle: H) => T {
  const built = new WeakMap<H, T>()
  return (handle) => {
    let kept = built.get(handle)
    if (kept === undefined) built.set(handle, (kept = build(handle)))
    return kept
  }
}
