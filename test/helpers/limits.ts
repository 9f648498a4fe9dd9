/**
 * Time limits that scale with the machine. The suite's limits were set on two cores with nothing else
 * running; `npm test` (test/run.ts) measures how much slower this machine is right now and passes the
 * factor on in STOREFRONT_TEST_SLOWDOWN, so a laptop busy with other work gets longer limits instead of
 * tests that time out. A file run on its own (`npx bun test file`) gets the factor 1.
 */
export const SLOWDOWN_ENV = 'STOREFRONT_TEST_SLOWDOWN'

export const SLOWDOWN = Math.max(1, Number(process.env[SLOWDOWN_ENV]) || 1)

/** A time limit of `ms` on the machine the suite was tuned on, scaled for this one. */
export const limit = (ms: number): number => Math.round(ms * SLOWDOWN)
