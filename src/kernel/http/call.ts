import type { StoreCtx } from '../auth/kinds'
import type { AddressSource } from './client-address'
import type { NamedStore } from './inspection'

/** The answer's status and headers as a handler sets them (`set.status = 201`, `set.headers.location = …`). */
export interface AnswerSet {
  status: number
  headers: Record<string, string>
}

/**
 * One request on its way through the kernel (kernel.ts): made once when it arrives, and what every
 * step reads and writes, so that nothing about a request is kept anywhere else.
 */
export interface Call {
  readonly request: Request
  /** The listening server, which knows the client's address; null when the app is called in-process. */
  readonly server: AddressSource | null
  readonly requestId: string
  /** performance.now() when the request arrived. */
  readonly started: number
  /** Handed to the handler as `set`: the gate's RateLimit-* headers and what the handler sets; CORS and the request id are added when the answer is built (answer-headers.ts). */
  readonly set: AnswerSet
  /** The admitted caller of a store route (the gate, kernel/auth/gate.ts). */
  ctx: StoreCtx | undefined
  /** The store a refused credential named (a revoked key, an expired session): its inspector still shows the call. */
  refused: NamedStore | undefined
  /** The body text the kernel read (JSON or text routes), kept for the inspector in case the answer is an error. */
  sentBody: string | undefined
  /** Who sent a refusal that a flood is made of (inspection.ts, refusalSource). */
  source: string | undefined
}
