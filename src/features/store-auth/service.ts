import { eq } from 'drizzle-orm'
import { constantTimeEqual, hashPassword, hashToken, newStudentToken, STUDENT_TOKEN_TTL_MS, verifyPassword } from '../../kernel/auth/credentials'
import type { StudentCtx } from '../../kernel/auth/kinds'
import { groups, stores, studentSessions, students } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import type { LoginThrottle } from './login-throttle'

const findStudent = (db: Sql, rm: string) =>
  db
    .select({
      rm: students.rm,
      name: students.name,
      passwordHash: students.passwordHash,
      mustChangePassword: students.mustChangePassword,
      group: groups.name,
      storeId: stores.id,
      storeName: stores.storeName,
    })
    .from(students)
    .innerJoin(groups, eq(groups.id, students.groupId))
    .innerJoin(stores, eq(stores.groupId, students.groupId))
    .where(eq(students.rm, rm))
    .get()

/** While the password is still the initial one, the stored hash is null and the password is the RM. */
async function passwordMatches(student: { rm: string; passwordHash: string | null }, password: string) {
  return student.passwordHash === null ? constantTimeEqual(password, student.rm) : verifyPassword(password, student.passwordHash)
}

let decoyHash: Promise<string> | undefined
/** Spends the time of a real verification, so response times do not tell which RMs exist. */
async function decoyVerify(password: string) {
  decoyHash ??= hashPassword(`decoy-${Math.random()}`)
  await verifyPassword(password, await decoyHash)
  return false
}

function openSession(db: Sql, rm: string, now: number) {
  const token = newStudentToken()
  const expiresAt = now + STUDENT_TOKEN_TTL_MS
  db.insert(studentSessions).values({ tokenHash: hashToken(token), rm, createdAt: now, expiresAt }).run()
  return { token, expiresAt: isoTime(expiresAt) }
}

export async function login(deps: Deps, throttle: LoginThrottle, input: { rm: string; password: string }, address: string) {
  throttle.assertAllowed(input.rm, address)
  const student = findStudent(deps.db, input.rm)
  // The same answer for an unknown RM and a wrong password: the response does not tell which RMs exist.
  const ok = student ? await passwordMatches(student, input.password) : await decoyVerify(input.password)
  if (!student || !ok) {
    throttle.fail(input.rm, address)
    throw new AppError('UNAUTHENTICATED', 'RM or password is wrong. The first password is your RM; the teacher can reset it.')
  }
  throttle.succeed(input.rm)
  const session = openSession(deps.db, student.rm, deps.clock.now())
  return {
    token: session.token,
    student: { rm: student.rm, name: student.name, group: student.group },
    mustChangePassword: student.mustChangePassword,
    expiresAt: session.expiresAt,
  }
}

export function me(deps: Deps, ctx: StudentCtx) {
  const s = findStudent(deps.db, ctx.actor.rm)!
  return {
    student: { rm: s.rm, name: s.name, group: s.group },
    mustChangePassword: s.mustChangePassword,
    store: { id: s.storeId, storeName: s.storeName },
  }
}

export async function changePassword(
  deps: Deps,
  ctx: StudentCtx,
  input: { currentPassword: string; newPassword: string },
) {
  const rm = ctx.actor.rm
  const student = findStudent(deps.db, rm)!
  if (!(await passwordMatches(student, input.currentPassword))) {
    throw new AppError('VALIDATION_ERROR', 'currentPassword is wrong. (Until you change it, it is your RM.)', [
      { path: 'currentPassword', message: 'does not match your password' },
    ])
  }
  if (input.newPassword === rm) {
    throw new AppError('VALIDATION_ERROR', 'newPassword must differ from your RM, which everyone in class knows.', [
      { path: 'newPassword', message: 'must differ from the RM' },
    ])
  }
  if (input.newPassword === input.currentPassword) {
    throw new AppError('VALIDATION_ERROR', 'newPassword must differ from currentPassword.', [
      { path: 'newPassword', message: 'must differ from the current password' },
    ])
  }
  const passwordHash = await hashPassword(input.newPassword)
  const session = writeTransaction(deps.db, (tx) => {
    tx.update(students).set({ passwordHash, mustChangePassword: false }).where(eq(students.rm, rm)).run()
    // Every other session ends: a stolen token dies with the password change.
    tx.delete(studentSessions).where(eq(studentSessions.rm, rm)).run()
    return openSession(tx, rm, deps.clock.now())
  })
  return { token: session.token, mustChangePassword: false as const, expiresAt: session.expiresAt }
}
