import { z } from 'zod'

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

/** An ISO date (`2026-11-21`) or date-time. A date alone means the start of that day, UTC. */
const isoInstant = (name: string) =>
  z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), `${name} must be an ISO date such as 2026-11-21 or 2026-11-21T14:00:00Z`)

export const ActivityQuery = z.object({
  from: isoInstant('from').optional().describe('start, inclusive (default: when the first group was created)'),
  to: isoInstant('to').optional().describe('end, exclusive; a date alone includes that whole day (default: now)'),
  groupId: z.string().optional().describe('only this group'),
  format: z.enum(['json', 'csv']).default('json').describe('csv for a spreadsheet'),
})
export type ActivityQuery = z.infer<typeof ActivityQuery>

export const isDateOnly = (v: string) => DATE_ONLY.test(v)

const Counts = { calls: z.number().int(), errors: z.number().int().describe('responses with status >= 400'), lastCallAt: z.string().nullable() }

export const ActivityReport = z.object({
  from: z.string(),
  to: z.string(),
  groups: z.array(
    z.object({
      groupId: z.string(),
      name: z.string(),
      ...Counts,
      unattributed: z.number().int().describe('calls with no X-Student-RM of a member of this group'),
      students: z.array(z.object({ rm: z.string(), name: z.string(), ...Counts })),
    }),
  ),
})
export type ActivityReport = z.infer<typeof ActivityReport>
