import { eq } from 'drizzle-orm'
import { constantTimeEqual, hashToken, newStudentToken, STUDENT_TOKEN_TTL_MS } from '../../kernel/auth/credentials'
import { NO_ACCOUNT, panelOwner, type Passwords } from '../../kernel/auth/passwords'
import type { StudentCtx } from '../../kernel/auth/kinds'
import { groups, stores, studentSessions, students } from '../../kernel/auth/tables'
import { isoTime } from '../../kernel/clock'
import { writeTransaction, type Sql } from '../../kernel/db/database'
import type { Deps } from '../../kernel/deps'
import { AppError } from '../../kernel/errors'
import { rmInAnyCase, rmKey } from '../members'
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

/** The student `rm` names in another case than it is kept in, or undefined (after findStudent found none as written). */
function studentInAnyCase(db: Sql, rm: string) {
  const kept = rmInAnyCase(db, rm)
  return kept === undefined ? undefined : findStudent(db, kept)
}

/** Whether `password` is the student's RM, in any case: the initial password, and one a new one may not be. */
const isTheRm = (password: string, rm: string) => constantTimeEqual(rmKey(password), rmKey(rm))

/**
 * While the password is still the initial one, the stored hash is null and the password is the RM (in
 * any case, as the RM it logs in with).
 * Every check costs one full verification, against a decoy when there is no hash (an unknown RM, an
 * initial password): the time of a failure tells neither which RMs exist nor which can still be taken over.
 */
async function passwordMatches(passwords: Passwords, student: { rm: string; passwordHash: string | null; storeId: string } | undefined, password: string) {
  // In the turn of the student's store (a login naming no one, in the turn of those).
  const verified = await passwords.verify(student ? panelOwner(student.storeId) : NO_ACCOUNT, password, student?.passwordHash ?? (await passwords.decoyHash()))
  if (!student) return false
  return student.passwordHash === null ? isTheRm(password, student.rm) : verified
}

function openSession(db: Sql, rm: string, now: number) {
  const token = newStudentToken()
  const expiresAt = now + STUDENT_TOKEN_TTL_MS
  db.insert(studentSessions).values({ tokenHash: hashToken(token), rm, createdAt: now, expiresAt }).run()
  return { token, expiresAt: isoTime(expiresAt) }
}

/** The answer to a wrong RM or password, and to a password that changed while it was checked. */
const wrongLogin = () => new AppError('UNAUTHENTICATED', 'RM or password is wrong. The first password is your RM; the teacher can reset it.')

/**
 * The student as they are now, in the transaction that acts on a password checked before it (the check
 * awaits argon2): undefined when they were removed, or their password changed or was reset meanwhile,
 * so that the password checked is no longer theirs.
 */
function stillWithPassword(tx: Sql, checked: { rm: string; passwordHash: string | null }) {
  const now = findStudent(tx, checked.rm)
  return now?.passwordHash === checked.passwordHash ? now : undefined
}

export async function login(deps: Deps, throttle: LoginThrottle, input: { rm: string; password: string }, address: string) {
  // Counted under the RM whatever its case: ra1 and RA1 are one student's failures.
  const attempt = throttle.begin(rmKey(input.rm), input.rm, address)
  // As written, else whatever its case (keptRm): a phone keyboard writes ra2025x for RA2025X.
  const student = findStudent(deps.db, input.rm) ?? studentInAnyCase(deps.db, input.rm)
  // The same answer for an unknown RM and a wrong password: the response does not tell which RMs exist.
  const ok = await attempt.checked(passwordMatches(deps.passwords, student, input.password))
  if (!student || !ok) throw wrongLogin()
  // A password changed or reset, or a student removed, while this one was checked ends the login as a wrong one.
  const opened = writeTransaction(deps.db, (tx) => {
    const now = stillWithPassword(tx, student)
    return now && { now, session: openSession(tx, student.rm, deps.clock.now()) }
  })
  if (!opened) throw wrongLogin()
  attempt.succeeded()
  const { now, session } = opened
  return {
    token: session.token,
    student: { rm: now.rm, name: now.name, group: now.group },
    mustChangePassword: now.mustChangePassword,
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

/**
 * A wrong currentPassword counts as a failed login of the RM (`throttle`, the login's): a session, even
 * a stolen one, is no way around the login's limit on guessing the password.
 */
export async function changePassword(
  deps: Deps,
  throttle: LoginThrottle,
  ctx: StudentCtx,
  input: { currentPassword: string; newPassword: string },
  address: string,
) {
  const rm = ctx.actor.rm
  const attempt = throttle.begin(rmKey(rm), rm, address)
  const student = findStudent(deps.db, rm)!
  if (!(await attempt.checked(passwordMatches(deps.passwords, student, input.currentPassword)))) {
    throw new AppError('VALIDATION_ERROR', 'currentPassword is wrong. (Until you change it, it is your RM.)', [
      { path: 'currentPassword', message: 'does not match your password' },
    ])
  }
  attempt.succeeded()
  // Spaces around it make no other password: " RM12345 " is guessed as soon as the RM is.
  if (isTheRm(input.newPassword.trim(), rm)) {
    throw new AppError('VALIDATION_ERROR', 'newPassword must differ from your RM, which everyone in class knows (spaces around it do not count).', [
      { path: 'newPassword', message: 'must differ from the RM' },
    ])
  }
  if (input.newPassword === input.currentPassword) {
    throw new AppError('VALIDATION_ERROR', 'newPassword must differ from currentPassword.', [
      { path: 'newPassword', message: 'must differ from the current password' },
    ])
  }
  const passwordHash = await deps.passwords.hash(panelOwner(student.storeId), input.newPassword)
  const session = writeTransaction(deps.db, (tx) => {
    // Another change (or the teacher's reset, or a removal) while this one was checked ended this session.
    if (!stillWithPassword(tx, student)) {
      throw new AppError(
        'UNAUTHENTICATED',
        'Your password was changed or reset by another request while this one was checked, which ended this session; this request changed nothing. Log in again with the password now in force: POST /v1/store/auth/login.',
      )
    }
    tx.update(students).set({ passwordHash, mustChangePassword: false }).where(eq(students.rm, rm)).run()
    // Every other session ends: a stolen token dies with the password change.
    tx.delete(studentSessions).where(eq(studentSessions.rm, rm)).run()
    return openSession(tx, rm, deps.clock.now())
  })
  return { token: session.token, mustChangePassword: false as const, expiresAt: session.expiresAt }
}
