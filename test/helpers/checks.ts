import { CHECK_STAMPS_ENV } from '../../src/kernel/db/change-stamp'
import { CHECK_ANSWERS_ENV } from '../../src/kernel/http/answer-check'

/**
 * The switches every test runs with, in-process (test/setup.ts) or in an executable a test starts
 * (executable.ts): every JSON answer is checked against its route's schema (kernel/http/answer-check.ts),
 * and every write against the commit count that tells kept reads of a change (kernel/db/change-stamp.ts).
 */
export const TEST_CHECKS = { [CHECK_ANSWERS_ENV]: '1', [CHECK_STAMPS_ENV]: '1' } as const
