import { AppError } from '../../kernel/errors'
import { ORDER_STATES, type OrderState } from './tables'

// The order state machine, in one table. Each row is a move and the operations
// that may make it; anything not listed is 409 INVALID_TRANSITION.

export type Operation = 'pay' | 'cancel' | 'expire' | 'transition' | 'refund'

export const MOVES: readonly { from: OrderState; to: OrderState; by: readonly Operation[] }[] = [
  { from: 'PENDING', to: 'PAID', by: ['pay'] },
  { from: 'PENDING', to: 'CANCELLED', by: ['cancel', 'transition', 'expire'] },
  { from: 'PAID', to: 'SHIPPED', by: ['transition'] },
  { from: 'SHIPPED', to: 'DELIVERED', by: ['transition'] },
  { from: 'PAID', to: 'REFUNDED', by: ['refund'] },
  { from: 'SHIPPED', to: 'REFUNDED', by: ['refund'] },
  { from: 'DELIVERED', to: 'REFUNDED', by: ['refund'] },
]

const orList = (items: readonly string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`)

/** How a student makes each kind of move, for the messages. */
const HOW: Record<Operation, string> = {
  pay: 'POST /v1/orders/:id/pay',
  cancel: 'POST /v1/orders/:id/cancel',
  expire: 'expiry',
  transition: 'POST /v1/store/orders/:id/transition',
  refund: 'POST /v1/store/orders/:id/refund',
}

/**
 * Paid and not refunded: PAID and every state an order reaches from it without a refund. The buyer of
 * such an order has paid for what it holds (and keeps it), which is what lets them review it.
 */
export const PAID_STATES: readonly OrderState[] = (() => {
  const states: OrderState[] = ['PAID']
  for (const from of states) {
    for (const m of MOVES) if (m.from === from && !m.by.includes('refund') && !states.includes(m.to)) states.push(m.to)
  }
  return states
})()

/** What `POST /v1/store/orders/:id/transition` may ask for: the states some move by `transition` reaches. */
const TRANSITION_TARGETS = [...new Set(MOVES.filter((m) => m.by.includes('transition')).map((m) => m.to))] as [OrderState, ...OrderState[]]

/**
 * What the transition body says of `to`: every order state is a valid value (a move the order's state or
 * this route does not allow is 409 INVALID_TRANSITION, as for every other move); what the store can move
 * an order to here, and how each other state is reached (PAID by payment, REFUNDED by the refund route,
 * PENDING by checkout only).
 */
export const TRANSITION_TO_MESSAGE = (() => {
  const others = ORDER_STATES.filter((s) => !TRANSITION_TARGETS.includes(s)).map((s) => {
    const by = [...new Set(MOVES.filter((m) => m.to === s).flatMap((m) => m.by.filter((b) => b !== 'expire')))]
    return by.length ? `${s} by ${by.map((b) => HOW[b]).join(' or ')}` : `${s} only at checkout`
  })
  return `to must be an order state: ${orList(ORDER_STATES)}. The store moves an order to ${orList(TRANSITION_TARGETS)} here; it becomes ${others.join(', ')} (asked here, those are 409 INVALID_TRANSITION)`
})()

export const canMove = (from: OrderState, to: OrderState, op: Operation) => MOVES.some((m) => m.from === from && m.to === to && m.by.includes(op))

/** The states `op` may move an order to from `from`, in the order MOVES lists them (for the order body). */
export const targetsOf = (from: OrderState, op: Operation): OrderState[] => MOVES.filter((m) => m.from === from && m.by.includes(op)).map((m) => m.to)

/** What the customer's own routes do (with the customer token); the other moves are the store's. */
const BUYER_OPERATIONS: readonly Operation[] = ['pay', 'cancel']

/** Throws 409 INVALID_TRANSITION unless `op` may move an order from `from` to `to`; the message lists what is possible. */
export function assertMove(orderId: string, from: OrderState, to: OrderState, op: Operation) {
  if (canMove(from, to, op)) return
  const possible = MOVES.filter((m) => m.from === from).map((m) => `${m.to} by ${m.by.filter((b) => b !== 'expire').map((b) => HOW[b]).join(' or ')}`)
  const next = possible.length ? `From ${from} the order can go to: ${possible.join('; ')}.` : `${from} is final: nothing more can happen to the order.`
  // A buyer (paying, cancelling) told routes only the store may call learns whom to ask.
  const storesOnly = BUYER_OPERATIONS.includes(op) && possible.length > 0 && !MOVES.some((m) => m.from === from && m.by.some((b) => BUYER_OPERATIONS.includes(b)))
  const whose = storesOnly ? " Those are the store's routes (its secret key or a student's token): the customer asks the store, for a refund say." : ''
  throw new AppError('INVALID_TRANSITION', `Order ${orderId} is ${from} and cannot become ${to} this way. ${next}${whose}${hintTo(from, to)}`, [{ orderId, status: from, requested: to }])
}

/** How an order becomes `to`, for a refused move from `from`: the route to use now, or from which states some route leads there. */
function hintTo(from: OrderState, to: OrderState): string {
  const routes = (moves: readonly (typeof MOVES)[number][]) => orList([...new Set(moves.flatMap((m) => m.by.filter((b) => b !== 'expire').map((b) => HOW[b])))])
  const now = MOVES.filter((m) => m.from === from && m.to === to)
  if (now.length) return ` To make it ${to}, use ${routes(now)}.`
  if (from === to) return ` It is ${to} already.`
  const later = MOVES.filter((m) => m.to === to)
  return later.length ? ` An order becomes ${to} from ${orList(later.map((m) => m.from))}, by ${routes(later)}.` : ` Only checkout makes an order ${to}.`
}
