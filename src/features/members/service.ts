import { and, asc, count, eq, inArray, sql } from 'drizzle-orm'
import type { StoreCtx } from '../../kernel/auth/kinds'
import { formerMembers, groups, studentSessions, students } from '../../kernel/auth/tables'
import type { Sql } from '../../kernel/db/database'
import { AppError } from '../../kernel/errors'
import { MAX_MEMBERS_PER_GROUP, rmKey, type Member, type MemberInput } from './model'

// Group membership, shared by the teacher's routes and the store panel. The member list is what the
// teacher grades from, so its rules (a student in one group only, no group left empty, no removing
// oneself, at most MAX_MEMBERS_PER_GROUP) are enforced here, in one place.

export const listMembers = (db: Sql, groupId: string): Member[] =>
  db.select({ rm: students.rm, name: students.name }).from(students).where(eq(students.groupId, groupId)).orderBy(asc(students.rm)).all()

/** The students whose RM is one of `rms`, whatever its case (rmKey): RMs are ASCII, so SQLite's lower() is rmKey. */
export const studentsWithRms = (rms: string[]) => inArray(sql`lower(${students.rm})`, rms.map(rmKey))

/**
 * Refuses RMs already in a group, whatever their case (rmKey): the messages name each as it is kept. `revealGroup` is for the teacher, who may see which group holds
 * the RM; a student only learns that it is taken.
 */
export function assertRmsFree(db: Sql, groupId: string | null, rms: string[], revealGroup: boolean) {
  if (rms.length === 0) return
  const taken = db
    .select({ rm: students.rm, groupId: students.groupId, group: groups.name })
    .from(students)
    .innerJoin(groups, eq(groups.id, students.groupId))
    .where(studentsWithRms(rms))
    .all()
  const here = taken.filter((t) => t.groupId === groupId)
  if (here.length > 0) {
    throw new AppError('ALREADY_MEMBER', `RM ${here.map((t) => t.rm).join(', ')} is already a member of this group.`)
  }
  if (taken.length > 0) {
    const where = revealGroup ? taken.map((t) => `${t.rm} is in group '${t.group}'`).join('; ') : `${taken.map((t) => t.rm).join(', ')} already belongs to another group`
    throw new AppError(
      'RM_IN_OTHER_GROUP',
      `A student belongs to one group only: ${where}. ${revealGroup ? `Remove them from that group first (the Remove button on its page, or DELETE /v1/admin/groups/${taken[0]!.groupId}/members/${taken[0]!.rm}), then add them here; or import a class list that names their new group, which moves them.` : 'Ask the teacher if this is a mistake.'}`,
      taken.map((t) => (revealGroup ? { rm: t.rm, groupId: t.groupId, group: t.group } : { rm: t.rm })),
    )
  }
}

/** New members start with the RM as password and must change it at first login. */
export function insertMembers(db: Sql, groupId: string, members: MemberInput[], now: number) {
  if (members.length === 0) return
  db.insert(students)
    .values(members.map((m) => ({ rm: m.rm, name: m.name, groupId, passwordHash: null, mustChangePassword: true, createdAt: now })))
    .run()
}

/**
 * Moves students of other groups into this one, as new members: the RM is the password again, to be
 * changed at the next login, and every session ends (their next request is 401).
 */
export function moveMembers(db: Sql, groupId: string, members: MemberInput[], now: number) {
  rememberLeaving(db, members.map((m) => m.rm), now)
  for (const m of members) {
    db.update(students).set({ groupId, name: m.name, passwordHash: null, mustChangePassword: true }).where(eq(students.rm, m.rm)).run()
  }
  if (members.length) db.delete(studentSessions).where(inArray(studentSessions.rm, members.map((m) => m.rm))).run()
}

/**
 * 409 LIMIT_REACHED when `adding` more members would take the group (null: a group being created)
 * past MAX_MEMBERS_PER_GROUP. Called in the transaction of the insert: two additions at once cannot
 * both take the last place.
 */
export function assertRoomFor(db: Sql, groupId: string | null, adding: number) {
  const [{ n }] = groupId ? (db.select({ n: count() }).from(students).where(eq(students.groupId, groupId)).all() as [{ n: number }]) : [{ n: 0 }]
  if (n + adding <= MAX_MEMBERS_PER_GROUP) return
  const [state, next] = groupId
    ? [`this group has ${n} already`, 'A member of the group can remove one who left (DELETE /v1/store/members/:rm); or make a second group for the others.']
    : [`${adding} were listed`, `Create the group with ${MAX_MEMBERS_PER_GROUP} at most, and a second group for the others.`]
  throw new AppError('LIMIT_REACHED', `A group has at most ${MAX_MEMBERS_PER_GROUP} members, and ${state}. ${next}`, [
    { limit: MAX_MEMBERS_PER_GROUP, members: n, adding },
  ])
}

export function addMember(db: Sql, groupId: string, member: MemberInput, now: number, revealGroup: boolean): Member {
  assertRmsFree(db, groupId, [member.rm], revealGroup)
  assertRoomFor(db, groupId, 1)
  insertMembers(db, groupId, [member], now)
  return { rm: member.rm, name: member.name }
}

/**
 * The RM, as kept, of the student `rm` names (in `groupId` when given): as written first, else in any
 * case (rmKey). Undefined for none, and for a third spelling of two RMs kept in two cases before they
 * were compared ignoring case (RA1 and ra1 for Ra1): which student it means cannot be told.
 */
export function keptRm(db: Sql, rm: string, groupId?: string): string | undefined {
  const inGroup = groupId === undefined ? undefined : eq(students.groupId, groupId)
  const exact = db.select({ rm: students.rm }).from(students).where(and(eq(students.rm, rm), inGroup)).get()
  return exact ? exact.rm : rmInAnyCase(db, rm, groupId)
}

/** keptRm's second look, for a caller that has looked for the RM as written already. */
export function rmInAnyCase(db: Sql, rm: string, groupId?: string): string | undefined {
  const inGroup = groupId === undefined ? undefined : eq(students.groupId, groupId)
  const found = db.select({ rm: students.rm }).from(students).where(and(studentsWithRms([rm]), inGroup)).limit(2).all()
  return found.length === 1 ? found[0]!.rm : undefined
}

export function removeMember(db: Sql, ctx: StoreCtx, given: string, now: number) {
  const rm = keptRm(db, given, ctx.groupId)
  if (rm === undefined) throw new AppError('NOT_FOUND', `RM ${given} is not a member of this group. GET /v1/store/members lists them.`)
  if (ctx.actor.rm === rm) {
    throw new AppError('CANNOT_REMOVE_SELF', 'You cannot remove yourself from your group. Ask another member, or the teacher.')
  }
  const [{ n }] = db.select({ n: count() }).from(students).where(eq(students.groupId, ctx.groupId)).all() as [{ n: number }]
  if (n <= 1) throw new AppError('GROUP_WOULD_BE_EMPTY', 'A group keeps at least one member; this is the last one.')
  deleteMember(db, rm, now)
}

/** Removes the student `rm` (as kept) from their group, remembering it for the activity report. */
export function deleteMember(db: Sql, rm: string, now: number) {
  rememberLeaving(db, [rm], now)
  // Sessions go with the student row (ON DELETE CASCADE): the removal takes effect on the next request.
  db.delete(students).where(eq(students.rm, rm)).run()
}

/**
 * Keeps the group and name each of these students has now, before they leave it: the calls they made
 * stay counted for that group, and the activity report names them (former_members).
 */
function rememberLeaving(db: Sql, rms: string[], now: number) {
  if (rms.length === 0) return
  const leaving = db.select({ groupId: students.groupId, rm: students.rm, name: students.name }).from(students).where(inArray(students.rm, rms)).all()
  for (const l of leaving) {
    db.insert(formerMembers)
      .values({ ...l, leftAt: now })
      .onConflictDoUpdate({ target: [formerMembers.groupId, formerMembers.rm], set: { name: l.name, leftAt: now } })
      .run()
  }
}
