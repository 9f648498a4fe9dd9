import { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { tempDir } from './temp'

/**
 * One entry of a tar archive, written as is: `type` is the header's type flag ('0' a file, '5' a
 * folder, '1' a hard link, '2' a symbolic link, '3'/'4' devices, '6' a fifo, or any other byte).
 */
export interface TarEntry {
  path: string
  type: string
  body?: Uint8Array
  linkpath?: string
  /** The size its header claims, when not the body's: the archive then ends inside this entry. */
  claimedSize?: number
}

export const file = (path: string, body: Uint8Array | string = ''): TarEntry => ({ path, type: '0', body: typeof body === 'string' ? new TextEncoder().encode(body) : body })
export const folder = (path: string): TarEntry => ({ path, type: '5' })
export const symlink = (path: string, linkpath: string): TarEntry => ({ path, type: '2', linkpath })
export const hardlink = (path: string, linkpath: string): TarEntry => ({ path, type: '1', linkpath })

const BLOCK = 512

function header(name: string, type: string, size: number, linkpath = ''): Uint8Array {
  const block = new Uint8Array(BLOCK)
  const put = (at: number, length: number, text: string) => block.set(new TextEncoder().encode(text).subarray(0, length), at)
  const octal = (at: number, length: number, n: number) => put(at, length, `${n.toString(8).padStart(length - 1, '0')}\0`)
  put(0, 100, name)
  octal(100, 8, type === '5' ? 0o700 : 0o600)
  octal(108, 8, 0)
  octal(116, 8, 0)
  octal(124, 12, size)
  octal(136, 12, 1_700_000_000)
  put(156, 1, type)
  put(157, 100, linkpath)
  put(257, 8, 'ustar\u000000')
  put(148, 8, ' '.repeat(8))
  const sum = block.reduce((a, b) => a + b, 0)
  put(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `)
  return block
}

/** A pax header giving the next entry a path of any length. */
function paxPath(path: string): Uint8Array[] {
  const record = (n: number) => `${n} path=${path}\n`
  let length = record(0).length
  while (record(length).length !== length) length = record(length).length
  const body = new TextEncoder().encode(record(length))
  return [header('PaxHeader', 'x', body.length), padded(body)]
}

const padded = (body: Uint8Array) => {
  const out = new Uint8Array(Math.ceil(body.length / BLOCK) * BLOCK)
  out.set(body)
  return out
}

/** A gzipped tar archive holding exactly `entries`, in order, whatever they are. */
export function tarGz(entries: TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = []
  for (const e of entries) {
    const body = e.body ?? new Uint8Array(0)
    if (new TextEncoder().encode(e.path).length > 100) parts.push(...paxPath(e.path))
    parts.push(header(e.path.slice(0, 100), e.type, e.claimedSize ?? body.length, e.linkpath), padded(body))
  }
  parts.push(new Uint8Array(BLOCK * 2))
  return Bun.gzipSync(Buffer.concat(parts))
}

/** Every entry of an archive (a real backup), with its bytes, in order. */
export async function entriesOf(archive: string): Promise<TarEntry[]> {
  const tar = await import('tar')
  const entries: TarEntry[] = []
  const codes: Record<string, string> = { File: '0', Directory: '5' }
  await tar.list({
    file: archive,
    onReadEntry: (entry) => {
      const chunks: Buffer[] = []
      entry.on('data', (c: Buffer) => chunks.push(c))
      entry.on('end', () => entries.push({ path: entry.path, type: codes[entry.type] ?? '?', body: Buffer.concat(chunks) }))
    },
  })
  return entries
}

/** The database of an archive's entries, changed by `sql`: written to a file, run, read back. */
export function withSql(entries: TarEntry[], sql: string): TarEntry[] {
  const dir = tempDir('crafted-db')
  mkdirSync(dir, { recursive: true })
  const path = join(dir, 'storefront.db')
  writeFileSync(path, entries.find((e) => e.path === 'storefront.db')!.body!)
  const db = new Database(path)
  db.exec(sql)
  db.close()
  return entries.map((e) => (e.path === 'storefront.db' ? file(e.path, readFileSync(path)) : e))
}

/** What is under `root`, by relative path: a file by its SHA-256, a folder or a link by its kind ({} when there is no `root`). */
export function contents(root: string): Record<string, string> {
  if (!existsSync(root)) return {}
  return Object.fromEntries(
    readdirSync(root, { recursive: true, withFileTypes: true }).map((e) => {
      const path = join(e.parentPath, e.name)
      const kind = e.isSymbolicLink() ? 'link' : e.isDirectory() ? 'folder' : createHash('sha256').update(readFileSync(path)).digest('hex')
      return [relative(root, path), kind]
    }),
  )
}
