import { defineConfig } from 'drizzle-kit'

// Tables live beside their feature (src/**/tables.ts); drizzle-kit writes SQL into migrations/,
// which the server applies at start (src/kernel/db/migrate.ts) and the build embeds.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/**/tables.ts',
  out: './migrations',
})
