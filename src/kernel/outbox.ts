import type { Clock } from './clock'
import type { Tx } from './db/database'
import type { EventType } from './events'
import type { Ids } from './ids'
import { outboxEvents } from './tables'

export interface Outbox {
  /**
   * Writes the event in the caller's transaction and returns its id. Listeners hear of it after the
   * transaction has committed (transactions are synchronous, so a microtask runs after them).
   */
  emit(tx: Tx, storeId: string, type: EventType, data: Record<string, unknown>): string
  /** Called with no arguments whenever new events may be waiting; the dispatcher reads them from the table. */
  onEmit(listener: () => void): void
}

export function createOutbox(ids: Ids, clock: Clock): Outbox {
  const listeners: (() => void)[] = []
  let scheduled = false
  const notify = () => {
    scheduled = false
    for (const l of listeners) l()
  }
  return {
    emit(tx, storeId, type, data) {
      const id = ids.next('evt')
      tx.insert(outboxEvents).values({ id, storeId, type, data, createdAt: clock.now() }).run()
      if (!scheduled && listeners.length > 0) {
        scheduled = true
        queueMicrotask(notify)
      }
      return id
    },
    onEmit(listener) {
      listeners.push(listener)
    },
  }
}
