import { z } from 'zod'
import { nameText } from '../../kernel/control-characters'
import { Page } from '../../kernel/pagination'

export const Rm = z
  .string()
  .trim()
  .min(1, 'rm is required')
  .max(32, 'rm has at most 32 characters')
  .regex(/^[A-Za-z0-9._-]+$/, 'rm may hold letters, digits, dot, dash and underscore only')
  // "." and ".." are no path segment a URL keeps (it reads them as "here" and "up"): such a member
  // could never be named by DELETE /v1/store/members/:rm, nor by the teacher's routes.
  .regex(/^$|[A-Za-z0-9]/, 'rm needs a letter or a digit: dots, dashes and underscores alone are no registration number')
  .describe("The student's registration number (RM); also the login name and the initial password. Kept as written, compared ignoring case: ra2025x names the student RA2025X.")

/**
 * What two RMs are compared by: RA2025X and ra2025x name the same student, who is in one group at
 * most and logs in with either. An RM is kept as written.
 */
export const rmKey = (rm: string) => rm.toLowerCase()

/** A group holds at most this many students: the teacher grades from the list, and a class is split into groups. */
export const MAX_MEMBERS_PER_GROUP = 50

export const PersonName = nameText('name', 120)

export const MemberInput = z.object({ rm: Rm, name: PersonName }).strict()
export type MemberInput = z.infer<typeof MemberInput>

/** A student's path parameter: the RM that names the member. */
export const RmParams = z.object({ rm: z.string().describe('The RM, in any case: ra2025x names the student RA2025X.') })

export const Member = z.object({ rm: z.string(), name: z.string() }).meta({ id: 'Member' })
export type Member = z.infer<typeof Member>

export const MemberList = Page(Member)
