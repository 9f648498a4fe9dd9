import { count, eq, inArray, sql } from 'drizzle-orm'
import { groups, stores, students } from '../../kernel/auth/tables'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import { foldName } from '../../kernel/db/folded'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { pluralize } from '../../kernel/plural'
import { insertMembers, listMembers, MAX_MEMBERS_PER_GROUP, moveMembers, rmKey, studentsWithRms } from '../members'
import { ImportError, lineOf, parseClassList, type ImportRow } from './class-list'
import { groupNamed } from './service'

// Writing a class list read by class-list.ts: groups, their stores and members, in one transaction.

const asMember = (row: ImportRow) => ({ rm: row.rm, name: row.name })

/**
 * What the class list changed of a student already kept, on its line: their group (`moved`: a group
 * other than the one holding them) or their name (`renamed`: the list writes it otherwise).
 */
interface ImportChange {
  line: number
  rm: string
  from: string
  to: string
  /** A moved student's former name, when the list names them otherwise. */
  renamedFrom?: string
}

/**
 * Creates the groups (each with its store) and members of a class list in one transaction: every
 * row is checked first, and one bad row imports nothing. Importing the same list twice changes nothing.
 *
 * The teacher's list wins over a group that holds an RM already (a student may have added a classmate
 * to their own group first, to squat the RM): the student moves to the group the list names, with the
 * list's name, the RM as password again and every session ended, since whoever held the RM may have
 * set the password. A student already in the group the list names takes the list's name (a corrected
 * spelling). A group left with no members is kept, and named in the answer. A group the list
 * would take past MAX_MEMBERS_PER_GROUP (its members counted after the moves) is 409 LIMIT_REACHED,
 * and nothing is imported.
 */
export function importClassList(deps: Deps, rows: ImportRow[], progress: (message: string) => void = () => {}) {
  const now = deps.clock.now()
  return writeTransaction(deps.db, (tx) => {
    // By rmKey: a student kept as RA2025X is the list's ra2025x, and keeps the RM as written.
    const existing = new Map(
      tx
        .select({ rm: students.rm, name: students.name, groupId: students.groupId, group: groups.name })
        .from(students)
        .innerJoin(groups, eq(groups.id, students.groupId))
        .where(studentsWithRms(rows.map((r) => r.rm)))
        .all()
        .map((e) => [rmKey(e.rm), e]),
    )
    const byGroup = new Map<string, ImportRow[]>()
    for (const row of rows) {
      const key = foldName(row.group)
      byGroup.set(key, [...(byGroup.get(key) ?? []), row])
    }
    let groupsCreated = 0
    let studentsAdded = 0
    const moved: ImportChange[] = []
    const renamed: ImportChange[] = []
    const movedFrom = new Map<string, string>()
    const listed = new Map<string, string>()
    for (const members of byGroup.values()) {
      const name = members[0]!.group
      let group = groupNamed(tx, name)
      if (!group) {
        group = { id: deps.ids.next('grp'), name }
        tx.insert(groups).values({ id: group.id, name, createdAt: now }).run()
        tx.insert(stores).values({ id: deps.ids.next('str'), groupId: group.id, storeName: name, createdAt: now, updatedAt: now }).run()
        groupsCreated++
      }
      listed.set(group.id, group.name)
      const seen = new Set<string>()
      const unique = members.filter((m) => !seen.has(rmKey(m.rm)) && seen.add(rmKey(m.rm))) // a repeated line changes nothing
      const held = (m: ImportRow) => existing.get(rmKey(m.rm))
      const fresh = unique.filter((m) => !held(m))
      const elsewhere = unique.filter((m) => held(m) && held(m)!.groupId !== group.id)
      insertMembers(tx, group.id, fresh.map(asMember), now)
      moveMembers(tx, group.id, elsewhere.map((m) => ({ ...asMember(m), rm: held(m)!.rm })), now)
      for (const m of elsewhere) {
        const from = held(m)!
        moved.push({ line: m.line, rm: m.rm, from: from.group, to: group.name, ...(from.name === m.name ? {} : { renamedFrom: from.name }) })
        movedFrom.set(from.groupId, from.group)
      }
      // A student already here takes the list's name too: the teacher corrects a name by importing again.
      for (const m of unique.filter((m) => held(m)?.groupId === group.id && held(m)!.name !== m.name)) {
        const kept = held(m)!
        tx.update(students).set({ name: m.name }).where(eq(students.rm, kept.rm)).run()
        renamed.push({ line: m.line, rm: kept.rm, from: kept.name, to: m.name })
      }
      studentsAdded += fresh.length
      progress(`${group.name}: ${pluralize(fresh.length, 'new member')}${elsewhere.length ? `, ${elsewhere.length} moved from another group` : ''}`)
    }
    assertGroupsFit(tx, listed)
    const groupsLeftEmpty = [...movedFrom].filter(([id]) => listMembers(tx, id).length === 0).map(([, groupName]) => groupName)
    return {
      groupsCreated,
      studentsAdded,
      studentsMoved: moved.length,
      studentsRenamed: renamed.length,
      alreadyThere: rows.length - studentsAdded - moved.length - renamed.length,
      moved: moved.sort((a, b) => a.line - b.line),
      renamed: renamed.sort((a, b) => a.line - b.line),
      groupsLeftEmpty,
    }
  })
}

/** Counted once the list's rows are in: a move out of a group makes room for one coming in. */
function assertGroupsFit(tx: Sql, listed: Map<string, string>) {
  const crowded = tx
    .select({ groupId: students.groupId, n: count() })
    .from(students)
    .where(inArray(students.groupId, [...listed.keys()]))
    .groupBy(students.groupId)
    .having(sql`count(*) > ${MAX_MEMBERS_PER_GROUP}`)
    .all()
    .map((c) => ({ group: listed.get(c.groupId)!, members: c.n }))
  if (crowded.length === 0) return
  const which = crowded.map((c) => `'${c.group}' would have ${c.members}`).join(', ')
  throw new AppError(
    'LIMIT_REACHED',
    `A group has at most ${MAX_MEMBERS_PER_GROUP} members, and with this list ${which}; nothing was imported. Put the extra students in a second group (another group name on their lines), then import the list again.`,
    crowded.map((c) => ({ ...c, limit: MAX_MEMBERS_PER_GROUP })),
  )
}

/**
 * POST /v1/admin/groups/import: the same import as the CLI, from the request body. Every problem is
 * one 400 VALIDATION_ERROR listing them all by line; nothing is imported then.
 */
export async function importClassListText(deps: Deps, text: string) {
  try {
    const rows = await parseClassList(text)
    return { rows: rows.length, ...importClassList(deps, rows) }
  } catch (e) {
    if (!(e instanceof ImportError)) throw e
    // curl -d @class.csv removes the line breaks: the whole list arrives as one long line.
    const oneLine = !/[\r\n]/.test(text.trim()) && /^line 1: expected 3 columns/.test(e.problems[0] ?? '')
      ? ' The file arrived as a single line: send it with curl --data-binary, which keeps the line breaks that -d removes.'
      : ''
    throw new AppError(
      'VALIDATION_ERROR',
      `${pluralize(e.problems.length, 'problem')} in the class list (the first: ${e.problems[0]}); nothing was imported. Fix what details lists (each line it names) and send the whole file again.${oneLine}`,
      e.problems.map((problem) => {
        const line = lineOf(problem)
        return line === undefined ? { path: 'file', message: problem } : { path: `line ${line}`, line, message: problem.replace(/^line \d+: /, '') }
      }),
    )
  }
}
