import { afterEach } from 'bun:test'
import { cleanupTestApps } from './helpers/app'

afterEach(cleanupTestApps)
