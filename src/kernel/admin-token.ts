import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dataPath } from './data-dir'
import { randomToken } from './ids'
import { keepPrivate } from './private-files'

export interface AdminToken {
  token: string
  /** Where it came from, for the start banner. */
  source: 'configured' | 'file' | 'generated'
  file: string
}

/**
 * The teacher's token: the configured one, else the one kept in the data dir, else a new one written
 * there with mode 0600 (only the owner of the server process can read it).
 */
export function resolveAdminToken(dataDir: string, configured: string | undefined): AdminToken {
  const file = dataPath(dataDir, 'adminToken')
  if (configured) return { token: configured, source: 'configured', file }
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim()
    if (token.length >= 16) return { token, source: 'file', file }
  }
  const token = `adm_${randomToken(32)}`
  writeFileSync(file, token + '\n', { mode: 0o600 })
  keepPrivate(file)
  return { token, source: 'generated', file }
}
