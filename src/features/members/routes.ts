import { Elysia } from 'elysia'
import { asStudent } from '../../kernel/auth/kinds'
import { authMacro } from '../../kernel/auth/macro'
import { writeTransaction } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { MAX_MEMBERS_PER_GROUP, Member, MemberInput, MemberList, RmParams } from './model'
import { addMember, listMembers, removeMember } from './service'
import { noContent } from '../../kernel/http/no-content'
import { pageOfAll, ShortListQuery } from '../../kernel/pagination'

const tags = ['Store panel']

export const memberRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/store/members' })
    .use(authMacro)
    .get('/', ({ ctx, query }) => pageOfAll(listMembers(deps.db, ctx.groupId), query), {
      auth: 'student',
      query: ShortListQuery,
      response: { 200: MemberList },
      detail: {
        tags,
        summary: 'Members of my group',
        description: `The list the teacher grades from. A group has at most ${MAX_MEMBERS_PER_GROUP} members, and a page is 100 unless \`pageSize\` says otherwise, so without \`page\` and \`pageSize\` the list comes whole.`,
      },
    })
    .post(
      '/',
      ({ ctx, body, set }) => {
        set.status = 201
        return writeTransaction(deps.db, (tx) => addMember(tx, ctx.groupId, body, deps.clock.now(), false))
      },
      {
        auth: 'student',
        body: MemberInput,
        response: { 201: Member, 400: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Add a member',
          description: `The new member logs in with the RM as password and must change it. 409 ALREADY_MEMBER if already here, 409 RM_IN_OTHER_GROUP if in another group (RMs are compared ignoring case). A group has at most ${MAX_MEMBERS_PER_GROUP} members: adding one more is 409 LIMIT_REACHED (remove a member who left, or ask the teacher for a second group). The name is one line of text: control characters (newlines and tabs included) are 400 VALIDATION_ERROR.`,
        },
      },
    )
    .delete(
      '/:rm',
      ({ ctx, params }) => {
        writeTransaction(deps.db, (tx) => removeMember(tx, asStudent(ctx), params.rm, deps.clock.now()))
        return noContent()
      },
      {
        auth: 'student',
        params: RmParams,
        response: { 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Remove a member',
          description: 'You cannot remove yourself (409 CANNOT_REMOVE_SELF) and the group keeps at least one member (409 GROUP_WOULD_BE_EMPTY). The removed student is logged out at once. 204 with no body.',
        },
      },
    )
