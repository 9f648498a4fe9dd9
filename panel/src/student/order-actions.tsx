import { ConfirmButton, useAction } from '../ui'
import { useStudent } from './context'
import type { Order, OrderStatus } from './types'

/** The button for each target of POST /v1/store/orders/:id/transition. */
const VERB: Record<string, string> = { SHIPPED: 'Ship', DELIVERED: 'Mark delivered', CANCELLED: 'Cancel order' }

/** The moves of an order (POST /v1/store/orders/:id/transition, /refund), then `reload`: the list's and the order page's. */
export function useOrderActions(reload: () => void) {
  const { call } = useStudent()
  const action = useAction()
  const move = (order: Order, to: OrderStatus) =>
    action.run(async () => {
      await call('POST', `/store/orders/${order.id}/transition`, { body: { to } })
      reload()
    }, `Order #${order.number} is now ${to}.`)
  const refund = (order: Order) =>
    action.run(async () => {
      await call('POST', `/store/orders/${order.id}/refund`, { body: { restock: true } })
      reload()
    }, `Order #${order.number} refunded; its units are back in stock.`)
  return { action, move, refund }
}

/** A button for each move the order allows now (its `allowedTransitions`) and a refund when it is `refundable`. */
export function OrderActions({ order, actions }: { order: Order; actions: ReturnType<typeof useOrderActions> }) {
  const { money } = useStudent()
  const { action, move, refund } = actions
  return (
    <div class="actions">
      {order.allowedTransitions.map((to) =>
        to === 'CANCELLED' ? (
          <ConfirmButton key={to} label={VERB[to]!} question={`Cancel order #${order.number}?`} onConfirm={() => move(order, to)} disabled={action.busy} />
        ) : (
          <button key={to} type="button" onClick={() => move(order, to)} disabled={action.busy}>
            {VERB[to] ?? `Move to ${to}`}
          </button>
        ),
      )}
      {order.refundable && <ConfirmButton label="Refund" question={`Refund ${money(order.total)} and restock?`} onConfirm={() => refund(order)} disabled={action.busy} />}
      {order.allowedTransitions.length === 0 && !order.refundable && <span class="muted">none</span>}
    </div>
  )
}
