import { timingSafeEqual } from 'node:crypto'
import { randomToken } from '../ids'
import type { ApiKeyKind } from './kinds'

// How long the tokens of students and customers live, and how each credential is made.

export const STUDENT_TOKEN_TTL_MS = 24 * 60 * 60 * 1000
export const CUSTOMER_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000

/** The SHA-256 of a credential, in hex: what the tables keep. Bun's one-shot hash takes less than half the time of `node:crypto`'s, and every authenticated request hashes one or two. */
export const hashToken = (token: string): string => Bun.SHA256.hash(token, 'hex')

export const newStudentToken = () => `stu_${randomToken(40)}`
export const newCustomerToken = () => `ctk_${randomToken(40)}`

const KEY_PREFIX: Record<ApiKeyKind, string> = { secret: 'sk_', publishable: 'pk_' }

const PUBLIC_PART = 8
const SECRET_PART = 40
/** How many characters a key made by newApiKey has. */
export const API_KEY_LENGTH = 'sk_'.length + PUBLIC_PART + '_'.length + SECRET_PART

/** `sk_`/`pk_` + 8-char public part + `_` + 40 random chars; the prefix shown later is `sk_`/`pk_` + the public part. */
export function newApiKey(kind: ApiKeyKind) {
  const prefix = `${KEY_PREFIX[kind]}${randomToken(PUBLIC_PART)}`
  const key = `${prefix}_${randomToken(SECRET_PART)}`
  return { key, prefix, hash: hashToken(key) }
}

export const API_KEY_FORMAT = /^[sp]k_[0-9a-z]{8}_[0-9a-z]{32,}$/

/** The public part of a key as sent (`sk_`/`pk_` + 8 characters, what the panel lists), never the secret rest; undefined for what is not shaped like one. */
export const apiKeyPrefix = (value: string) => /^[sp]k_[0-9a-z]{8}(?=_)/.exec(value)?.[0]

/** Compares secrets without leaking, through timing, how many leading characters matched. */
export const constantTimeEqual = (a: string, b: string): boolean => timingSafeEqual(digestOf(a), digestOf(b))

/** Whether a value is `secret`, as constantTimeEqual tells, with the secret's digest made once (the teacher's token, compared on every teacher call). */
export function isSecret(secret: string): (value: string) => boolean {
  const digest = digestOf(secret)
  return (value) => timingSafeEqual(digestOf(value), digest)
}

const digestOf = (value: string) => Bun.SHA256.hash(value) as Uint8Array
