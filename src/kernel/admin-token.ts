import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { ADMIN_TOKEN_MIN_LENGTH, ConfigError } from '../config'
import { dataPath } from './data-dir'
import { randomToken } from './ids'
import { keepPrivate } from './private-files'

export interface AdminToken {
  token: string
  /** Where it came from, for the start banner. */
  source: 'configured' | 'file' | 'generated'
  file: string
  /** A configured token while the file holds another, which then opens nothing. */
  fileIgnored?: boolean
}

/**
 * The teacher's token: the configured one, else the one kept in the data dir, else a new one written
 * there with mode 0600 (only the owner of the server process can read it).
 */
export function resolveAdminToken(dataDir: string, configured: string | undefined): AdminToken {
  const file = dataPath(dataDir, 'adminToken')
  const kept = existsSync(file) ? readFileSync(file, 'utf8').trim() : ''
  // The file's token does not open the panel then: said at start, for whoever reads the file.
  if (configured) return { token: configured, source: 'configured', file, fileIgnored: kept !== '' && kept !== configured }
  if (kept.length >= ADMIN_TOKEN_MIN_LENGTH) return { token: kept, source: 'file', file }
  // A token the teacher wrote there, too short to keep a class out: not replaced behind their back.
  if (kept !== '') throw new ConfigError(`${file} holds an admin token of ${kept.length} characters; it needs at least ${ADMIN_TOKEN_MIN_LENGTH}. Write a longer one there, or delete the file to have a new one made`)
  const token = `adm_${randomToken(32)}`
  writeFileSync(file, token + '\n', { mode: 0o600 })
  keepPrivate(file)
  return { token, source: 'generated', file }
}
