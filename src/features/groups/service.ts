import { asc, count, eq, inArray } from 'drizzle-orm'
import { groups, stores, studentSessions, students } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import { isUniqueViolation, writeTransaction, type Sql } from '../../kernel/db/database'
import { sameName } from '../../kernel/db/folded'
import type { Deps } from '../../kernel/deps'
import { AppError, clip, idMixUp } from '../../kernel/errors'
import { pageWindow, toPage, type PageQuery } from '../../kernel/pagination'
import { addMember, assertRmsFree, assertRoomFor, deleteMember, insertMembers, keptRm, listMembers, type MemberInput } from '../members'
import type { CreateGroupBody, Group, RenameGroupBody } from './model'

// Teacher operations on groups. A group owns exactly one store, made with it.

const groupNameTaken = (name: string) => new AppError('CONFLICT', `A group named '${name}' already exists (names are compared ignoring case and accents). Choose another name.`)

/**
 * The group named `name` ignoring case and accents ('TURMA AÇÃO' is 'Turma Ação'), as group names are
 * unique: the unique index on lower(name) folds ASCII only.
 */
export const groupNamed = (db: Sql, name: string) => db.select({ id: groups.id, name: groups.name }).from(groups).where(sameName(groups.name, name)).get()

/** The id of the group named `name` (groupNamed); 404 listing the names otherwise. */
export function groupIdNamed(deps: Deps, name: string): string {
  const found = groupNamed(deps.db, name)
  if (found) return found.id
  const names = deps.db.select({ name: groups.name }).from(groups).orderBy(asc(groups.name)).limit(21).all().map((g) => `'${g.name}'`)
  const listed = names.length === 0 ? 'there is no group yet' : `the groups are ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', ...' : ''}`
  throw new AppError('NOT_FOUND', `No group is named '${name}': ${listed}.`)
}

export function createGroup(deps: Deps, input: CreateGroupBody): Group {
  const now = deps.clock.now()
  const groupId = deps.ids.next('grp')
  const storeId = deps.ids.next('str')
  try {
    writeTransaction(deps.db, (tx) => {
      const same = groupNamed(tx, input.name)
      if (same) throw groupNameTaken(same.name)
      assertRoomFor(tx, null, input.members.length)
      assertRmsFree(tx, null, input.members.map((m) => m.rm), true)
      tx.insert(groups).values({ id: groupId, name: input.name, createdAt: now }).run()
      tx.insert(stores).values({ id: storeId, groupId, storeName: input.name, createdAt: now, updatedAt: now }).run()
      insertMembers(tx, groupId, input.members, now)
    })
  } catch (e) {
    if (isUniqueViolation(e)) throw groupNameTaken(input.name)
    throw e
  }
  return getGroup(deps, groupId)
}

const groupRow = (db: Sql) =>
  db
    .select({ id: groups.id, name: groups.name, storeId: stores.id, createdAt: groups.createdAt })
    .from(groups)
    .innerJoin(stores, eq(stores.groupId, groups.id))

/** A group id the class does not have: an id of another kind (a store's, a student's RM) is named as such. */
export function groupNotFound(id: string) {
  const mixUp = idMixUp(id, 'group')
  return new AppError('NOT_FOUND', `No group with id '${clip(id)}'.${mixUp ? ` ${mixUp}.` : ''} GET /v1/admin/groups lists the groups with their ids.`)
}

export function getGroup(deps: Deps, id: string): Group {
  const row = groupRow(deps.db).where(eq(groups.id, id)).get()
  if (!row) throw groupNotFound(id)
  return { ...row, members: listMembers(deps.db, id), createdAt: isoTime(row.createdAt) }
}

export function listGroups(deps: Deps, query: PageQuery) {
  const { limit, offset } = pageWindow(query)
  const rows = groupRow(deps.db).orderBy(asc(groups.name)).limit(limit).offset(offset).all()
  const [{ n }] = deps.db.select({ n: count() }).from(groups).all() as [{ n: number }]
  const memberRows = rows.length
    ? deps.db.select({ rm: students.rm, name: students.name, groupId: students.groupId }).from(students)
        .where(inArray(students.groupId, rows.map((r) => r.id))).orderBy(asc(students.rm)).all()
    : []
  const data = rows.map((r) => ({
    ...r,
    members: memberRows.filter((m) => m.groupId === r.id).map(({ rm, name }) => ({ rm, name })),
    createdAt: isoTime(r.createdAt),
  }))
  return toPage(data, n, query)
}

export function addGroupMember(deps: Deps, groupId: string, member: MemberInput) {
  getGroup(deps, groupId)
  return writeTransaction(deps.db, (tx) => addMember(tx, groupId, member, deps.clock.now(), true))
}

/**
 * The teacher removes a student from their group: their sessions end, and their calls stay counted for
 * the group, under the name they had (former_members). Unlike a classmate, the teacher may remove the
 * last member: a group left empty keeps its store, as after a class list's moves.
 */
export function removeGroupMember(deps: Deps, groupId: string, given: string) {
  const group = getGroup(deps, groupId)
  writeTransaction(deps.db, (tx) => {
    const rm = keptRm(tx, given, groupId)
    if (rm === undefined) throw new AppError('NOT_FOUND', `RM ${given} is not a member of group '${group.name}'. GET /v1/admin/groups/${groupId} lists its members.`)
    deleteMember(tx, rm, deps.clock.now())
  })
}

/** A new name for a group (unique ignoring case and accents); its store keeps the name its students gave it. */
export function renameGroup(deps: Deps, groupId: string, input: RenameGroupBody): Group {
  getGroup(deps, groupId)
  try {
    writeTransaction(deps.db, (tx) => {
      const same = groupNamed(tx, input.name)
      if (same && same.id !== groupId) throw groupNameTaken(same.name)
      tx.update(groups).set({ name: input.name }).where(eq(groups.id, groupId)).run()
    })
  } catch (e) {
    if (isUniqueViolation(e)) throw groupNameTaken(input.name)
    throw e
  }
  return getGroup(deps, groupId)
}

/** Back to the initial password (the RM), to be changed at next login; every session ends. */
export function resetStudentPassword(deps: Deps, given: string) {
  const rm = writeTransaction(deps.db, (tx) => {
    const rm = keptRm(tx, given)
    if (rm === undefined) throw new AppError('NOT_FOUND', `No student with RM '${given}'. GET /v1/admin/groups lists every member.`)
    tx.update(students).set({ passwordHash: null, mustChangePassword: true }).where(eq(students.rm, rm)).run()
    tx.delete(studentSessions).where(eq(studentSessions.rm, rm)).run()
    return rm
  })
  return { rm, mustChangePassword: true as const }
}
