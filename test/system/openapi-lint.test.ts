import { expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createTestApp } from '../helpers/app'
import { tempDir } from '../helpers/temp'

const ROOT = join(import.meta.dir, '..', '..')
const REDOCLY = join(ROOT, 'node_modules', '.bin', 'redocly')

test('the served OpenAPI document passes Redocly lint with the recommended rules: no error and no warning', async () => {
  const { call } = createTestApp()
  const file = join(tempDir('openapi-lint'), 'openapi.json')
  writeFileSync(file, (await call('GET', '/openapi.json')).text)
  const lint = Bun.spawnSync([REDOCLY, 'lint', '--format=stylish', `--config=${join(ROOT, 'redocly.yaml')}`, file], {
    // A classroom may be offline: no update check, no telemetry.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const output = `${lint.stdout}${lint.stderr}`
  const problems = output.match(/^\s*\d+:\d+\s+(error|warning)\s.*$/gm) ?? []
  expect({ exitCode: lint.exitCode, problems }).toEqual({ exitCode: 0, problems: [] })
  expect(output).toContain('Your API description is valid')
  expect(output).not.toMatch(/You have \d+ warning/)
})
