import { z } from 'zod'
import { nameText } from '../../kernel/control-characters'
import { MAX_MEMBERS_PER_GROUP, Member, MemberInput, rmKey, RmParams } from '../members/model'

export const GROUP_NAME_MAX = 80

/** A group's name, as it is created and renamed. */
const GroupName = nameText('name', GROUP_NAME_MAX)

export const CreateGroupBody = z
  .object({
    name: GroupName,
    members: z
      .array(MemberInput)
      .default([])
      .describe(`Students of the group; each logs in with the RM as first password. At most ${MAX_MEMBERS_PER_GROUP} (409 LIMIT_REACHED beyond).`),
  })
  .strict()
  .refine((g) => new Set(g.members.map((m) => rmKey(m.rm))).size === g.members.length, {
    message: 'the same rm appears twice in members (RMs are compared ignoring case)',
    path: ['members'],
  })
export type CreateGroupBody = z.infer<typeof CreateGroupBody>

export const RenameGroupBody = z.object({ name: GroupName }).strict()
export type RenameGroupBody = z.infer<typeof RenameGroupBody>

export const Group = z
  .object({
    id: z.string(),
    name: z.string(),
    storeId: z.string(),
    members: z.array(Member),
    createdAt: z.string(),
  })
  .meta({ id: 'Group' })
export type Group = z.infer<typeof Group>

export const GroupIdParams = z.object({ id: z.string() })

/** A member of a group: the group's id and the member's RM, as the panel's member routes name it. */
export const GroupMemberParams = GroupIdParams.extend(RmParams.shape)

export const PasswordReset = z.object({ rm: z.string(), mustChangePassword: z.literal(true) })

export const ImportSummary = z
  .object({
    rows: z.number().int().describe('student lines read from the file (the header not counted)'),
    groupsCreated: z.number().int().describe('groups (each with its store) that did not exist yet; the others, matched by name ignoring case, were kept'),
    studentsAdded: z.number().int().describe('students added to their group; each logs in with the RM as first password'),
    studentsMoved: z.number().int().describe('students another group held, moved to the group the list names (each listed in `moved`)'),
    studentsRenamed: z.number().int().describe('students already in the group the list names, under another name: they take the list\u2019s (each listed in `renamed`)'),
    alreadyThere: z.number().int().describe('lines whose student was already in that group under that name (or repeated in the file): nothing changed for them'),
    moved: z
      .array(
        z.object({
          line: z.number().int(),
          rm: z.string(),
          from: z.string().describe('the group that held the student'),
          to: z.string(),
          renamedFrom: z.string().optional().describe('the name the student had, when the list names them otherwise: they take the list\u2019s'),
        }),
      )
      .describe("each student moved: the list wins over the group that held the RM. The student's sessions ended and the password is the RM again."),
    renamed: z
      .array(z.object({ line: z.number().int(), rm: z.string(), from: z.string().describe('the name the student had'), to: z.string() }))
      .describe('each student whose name the list corrected; nothing else of theirs changed'),
    groupsLeftEmpty: z.array(z.string()).describe('groups that lost their last member to a move; they are kept, with their store'),
  })
  .meta({ id: 'ImportSummary' })
