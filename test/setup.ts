import { afterEach } from 'bun:test'
import { cleanupTestApps } from './helpers/app'
import { stopReceivers } from './helpers/receivers'

afterEach(async () => {
  await cleanupTestApps()
  stopReceivers()
})
