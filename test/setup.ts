import { afterAll, afterEach } from 'bun:test'
import { cleanupTestApps } from './helpers/app'
import { killChildren, reapChildren } from './helpers/children'
import { stopReceivers } from './helpers/receivers'
import { removeTempDirs } from './helpers/temp'
import { TEST_CHECKS } from './helpers/checks'

// In every test, in-process or in an executable a test starts (helpers/checks.ts).
Object.assign(process.env, TEST_CHECKS)

afterEach(async () => {
  await cleanupTestApps()
  stopReceivers()
})

// After each test file when files run in parallel, after the whole run otherwise. The processes go
// first: a server still running holds files in the folders removed next.
afterAll(async () => {
  await reapChildren()
  removeTempDirs()
})

// Whatever ends the test process (the last file, Ctrl-C, a kill) ends the processes its tests started.
process.on('exit', killChildren)
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  process.on(signal, () => {
    killChildren()
    process.exit(code)
  })
}
