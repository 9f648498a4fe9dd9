import { afterAll, afterEach } from 'bun:test'
import { cleanupTestApps } from './helpers/app'
import { stopReceivers } from './helpers/receivers'
import { removeTempDirs } from './helpers/temp'

afterEach(async () => {
  await cleanupTestApps()
  stopReceivers()
})

// After each test file when files run in parallel, after the whole run otherwise.
afterAll(removeTempDirs)
