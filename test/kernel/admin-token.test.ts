import { describe, expect, test } from 'bun:test'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../src/config'
import { resolveAdminToken } from '../../src/kernel/admin-token'
import { tempDir } from '../helpers/temp'

describe("the teacher's admin token", () => {
  test('is made once and kept in the data folder; the next start reads it', () => {
    const dir = tempDir('admin-token')
    const made = resolveAdminToken(dir, undefined)
    expect(made).toMatchObject({ source: 'generated', file: join(dir, 'admin-token') })
    expect(made.token).toMatch(/^adm_[0-9a-z]{32}$/)
    expect(resolveAdminToken(dir, undefined)).toEqual({ token: made.token, source: 'file', file: join(dir, 'admin-token') })
  })

  test('one the teacher wrote into the file is kept; one too short is refused, not replaced behind their back', () => {
    const dir = tempDir('admin-token')
    const file = join(dir, 'admin-token')
    writeFileSync(file, 'professora-ana-2026\n')
    expect(resolveAdminToken(dir, undefined)).toEqual({ token: 'professora-ana-2026', source: 'file', file })
    writeFileSync(file, 'profsenha\n')
    expect(() => resolveAdminToken(dir, undefined)).toThrow(
      new ConfigError(`${file} holds an admin token of 9 characters; it needs at least 16. Write a longer one there, or delete the file to have a new one made`),
    )
    expect(readFileSync(file, 'utf8')).toBe('profsenha\n')
    // An empty file is none.
    writeFileSync(file, '\n')
    expect(resolveAdminToken(dir, undefined).source).toBe('generated')
  })

  test('a configured token wins, and says when the file holds another one, which then opens nothing', () => {
    const dir = tempDir('admin-token')
    const file = join(dir, 'admin-token')
    expect(resolveAdminToken(dir, 'configured-token-0001')).toEqual({ token: 'configured-token-0001', source: 'configured', file, fileIgnored: false })
    writeFileSync(file, 'an-older-token-in-the-file\n')
    expect(resolveAdminToken(dir, 'configured-token-0001')).toEqual({ token: 'configured-token-0001', source: 'configured', file, fileIgnored: true })
    writeFileSync(file, 'configured-token-0001\n')
    expect(resolveAdminToken(dir, 'configured-token-0001').fileIgnored).toBe(false)
  })
})
