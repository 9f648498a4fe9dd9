import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { noContent } from '../../kernel/http/no-content'
import { textBodyDetail, textOf } from '../../kernel/http/text-body'
import { Page, PageQuery } from '../../kernel/pagination'
import { MAX_MEMBERS_PER_GROUP, Member, MemberInput, RmParams } from '../members'
import { MAX_IMPORT_ROWS } from './class-list'
import { importClassListText } from './import'
import { CreateGroupBody, Group, GroupIdParams, GroupMemberParams, ImportSummary, PasswordReset, RenameGroupBody } from './model'
import { addGroupMember, createGroup, getGroup, listGroups, removeGroupMember, renameGroup, resetStudentPassword } from './service'
import { created } from '../../kernel/http/created'

const tags = ['Admin']

/** Teacher routes (X-Admin-Token): groups, their members, password resets. */
export const groupRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/admin' })
    .use(authMacro)
    .post(
      '/groups',
      ({ body, set }) => created(set, createGroup(deps, body), (id) => `/v1/admin/groups/${id}`),
      {
        admin: true,
        body: CreateGroupBody,
        response: { 201: Group, 400: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Create a group and its store',
          description: `Members log in with their RM as user name and first password, and must change it. Group names are unique ignoring case and accents (409 CONFLICT); an RM already in another group is 409 RM_IN_OTHER_GROUP (RMs are compared ignoring case: RA2025X and ra2025x are one student, kept as first written). A group has at most ${MAX_MEMBERS_PER_GROUP} members: more is 409 LIMIT_REACHED (make a second group for the others). Names are one line of text: control characters (newlines and tabs included) are 400 VALIDATION_ERROR.`,
        },
      },
    )
    .post('/groups/import', ({ body }) => importClassListText(deps, textOf(body)), {
      admin: true,
      response: { 200: ImportSummary, 400: ErrorEnvelope, 409: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Create groups and members from a class list (CSV)',
        description:
          "The class list as the raw body with Content-Type: text/csv, the same file as the CLI's `groups import`: lines `group,rm,name` (or separated by semicolons or tabs throughout, as a spreadsheet in Portuguese saves it: the separator is the one that splits the list's lines into three columns with an RM in the middle, so a name or group may hold commas), a first line that is a header skipped (such as `group,rm,name`, `Grupo;R.M.;Nome do aluno` or `Grupo;Login;Nome`: an RM cell without digits, and two cells that say what their column is, in any case), lines of separators alone (`;;`, a spreadsheet's empty rows) skipped as blank ones, up to 1 MiB and " + MAX_IMPORT_ROWS + " students (curl: `--data-binary @class.csv -H 'Content-Type: text/csv'`). Groups are matched by name ignoring case and accents and created with their store when new; students start with the RM as password. A student another group already holds is moved to the group the list names (the list wins): their sessions end at once, their password is the RM again, and `moved` lists each move; a group left with no members is kept and named in `groupsLeftEmpty`. A student already in the group the list names takes the list's name, so a corrected spelling is imported (`renamed` lists each). Importing the same list twice changes nothing. The file's encoding is read from its bytes, as the panel and the CLI read a file: UTF-16 by its byte order mark (a spreadsheet's Unicode Text), UTF-8 when it is, else Windows-1252 (the CSV a spreadsheet in Portuguese saves); a `charset` parameter of the Content-Type (`text/csv; charset=windows-1252`) names it instead unless the file starts with a byte order mark, and another encoding than those three is 415. Names are kept with their accents composed (NFC). An RM a spreadsheet saved as a shortened number (`1,23457E+11`) is named as such. Lines are counted as in the file, blank ones included. Any bad line (wrong column count, bad RM or name, a name holding a control character such as a tab or an escape, an RM in two groups of the list) is 400 VALIDATION_ERROR with one entry per problem in details (`line`, `message`), and nothing is imported. A group the list would take past " + MAX_MEMBERS_PER_GROUP + " members (counted after the moves) is 409 LIMIT_REACHED naming it, and nothing is imported. JSON or any other content type is 415; an empty body is 400.",
        ...textBodyDetail({ mediaType: 'text/csv', file: 'class.csv' }, 'lines group,rm,name; a header line is optional'),
      } as never,
    })
    .get('/groups', ({ query }) => listGroups(deps, query), {
      admin: true,
      query: PageQuery,
      response: { 200: Page(Group) },
      detail: { tags, summary: 'List groups with their members and store ids', description: 'Sorted by name.' },
    })
    .get('/groups/:id', ({ params }) => getGroup(deps, params.id), {
      admin: true,
      params: GroupIdParams,
      response: { 200: Group, 404: ErrorEnvelope },
      detail: { tags, summary: 'One group' },
    })
    .post(
      '/groups/:id/members',
      ({ params, body, set }) => {
        set.status = 201
        return addGroupMember(deps, params.id, body)
      },
      {
        admin: true,
        params: GroupIdParams,
        body: MemberInput,
        response: { 201: Member, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Add a student to a group',
          description: `The same rules as the panel: 409 ALREADY_MEMBER or RM_IN_OTHER_GROUP, and 409 LIMIT_REACHED past ${MAX_MEMBERS_PER_GROUP} members. The password starts as the RM.`,
        },
      },
    )
    .delete(
      '/groups/:id/members/:rm',
      ({ params }) => {
        removeGroupMember(deps, params.id, params.rm)
        return noContent()
      },
      {
        admin: true,
        params: GroupMemberParams,
        response: { 404: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Remove a student from a group',
          description:
            "The student's sessions end at once and the RM is free for another group. Their calls stay counted for this group: the activity report names them as they were, followed by \"(no longer a member)\". Unlike DELETE /v1/store/members/:rm (a classmate's), the teacher may remove the last member: the group stays, with its store.",
        },
      },
    )
    .patch('/groups/:id', ({ params, body }) => renameGroup(deps, params.id, body), {
      admin: true,
      params: GroupIdParams,
      body: RenameGroupBody,
      response: { 200: Group, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Rename a group',
        description:
          "Group names are unique ignoring case and accents: another group's is 409 CONFLICT. The store keeps its own name (the students' storeName setting), and members, keys and counts stay with the group.",
      },
    })
    .post('/students/:rm/reset-password', ({ params }) => resetStudentPassword(deps, params.rm), {
      admin: true,
      params: RmParams,
      response: { 200: PasswordReset, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: "Reset a student's password to the RM",
        description: 'The student must change it again at the next login; every session of the student ends at once.',
      },
    })
