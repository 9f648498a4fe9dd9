import type { Clock } from './clock'
import type { Tx } from './db/database'
import type { EventData, EventType } from './events'
import type { Ids } from './ids'
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm'
import { perHandle } from './db/per-handle'
import { withParams } from './db/prepared'
import { outboxEvents } from './tables'

export interface Outbox {
  /**
   * Writes the event in the caller's transaction and returns its id. Listeners hear of it after the
   * transaction has committed: once per turn of the event loop, for every event emitted in that turn
   * (transactions are synchronous, so none is open between two turns). Under a buying load one look
   * of the webhook dispatcher then serves the events of many requests, instead of one look each.
   */
  emit<T extends EventType>(tx: Tx, storeId: string, type: T, data: EventData<T>): string
  /**
   * Called whenever new events may be waiting, with the stores that emitted them in that turn: the
   * dispatcher reads them from the table, and a store's listen streams wake only for its own.
   */
  onEmit(listener: (stores: ReadonlySet<string>) => void): void
}

/**
 * Whether an event of `type` of the store has anyone to be fanned out to now, as SQL: an event that
 * has no one is written already dispatched, so nothing looks at it again (no transaction of the
 * dispatcher's, no second write of its row). The webhooks feature says who subscribes (wiring.ts).
 */
export type FanOutCheck = (storeId: SQLWrapper, type: SQLWrapper) => SQL

const p = sql.placeholder
type EventValues = { id: string; storeId: string; type: EventType; data: Record<string, unknown>; now: number }

export function createOutbox(ids: Ids, clock: Clock, toFanOut: FanOutCheck): Outbox {
  const dispatchedAt = sql`case when ${toFanOut(p('storeId'), p('type'))} then null else ${p('now')} end`
  const insertEvent = perHandle((tx: Tx) =>
    withParams<EventValues>()(tx.insert(outboxEvents).values({ id: p('id'), storeId: p('storeId'), type: p('type'), data: p('data'), createdAt: p('now'), dispatchedAt }).prepare()),
  )
  const listeners: ((stores: ReadonlySet<string>) => void)[] = []
  /** The stores that emitted since the last notice; the notice is scheduled once this is no longer empty. */
  let emitted = new Set<string>()
  const notify = () => {
    const stores = emitted
    emitted = new Set()
    for (const l of listeners) l(stores)
  }
  return {
    emit(tx, storeId, type, data) {
      const id = ids.next('evt')
      insertEvent(tx).run({ id, storeId, type, data: data as Record<string, unknown>, now: clock.now() })
      if (listeners.length > 0) {
        if (emitted.size === 0) setImmediate(notify)
        emitted.add(storeId)
      }
      return id
    },
    onEmit(listener) {
      listeners.push(listener)
    },
  }
}
