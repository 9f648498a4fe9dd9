import { Done, ErrorNote, Field, Paged, Section, Table, useLoad, when } from '../ui'
import { OrderActions, useOrderActions } from './order-actions'
import { useStudent } from './context'
import { OrderPage } from './order'
import { rememberList, showList, useRoute } from '../router'
import type { Order, OrderStatus } from './types'
import type { Page } from '../api'

const STATUSES: OrderStatus[] = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'REFUNDED']
const TONE: Partial<Record<OrderStatus, string>> = { PAID: 'good', DELIVERED: 'good', CANCELLED: 'bad', REFUNDED: 'warn' }

/**
 * GET /v1/store/orders with a button for each move the order allows now (its `allowedTransitions`)
 * and a refund when it is `refundable`.
 */
export function OrdersPage() {
  const [path, query = ''] = useRoute().split('?')
  const id = path!.slice('/store/orders/'.length)
  return id ? <OrderPage id={decodeURIComponent(id)} /> : <OrderList query={new URLSearchParams(query)} />
}

/**
 * `#/store/orders?status=PAID&page=2`: the list's filter and page live in the address, so a reload keeps
 * them, and an order's page goes back to the list as it was left.
 */
function OrderList({ query }: { query: URLSearchParams }) {
  const { call, money } = useStudent()
  const status = query.get('status') ?? ''
  const page = Math.max(1, Number(query.get('page')) || 1)
  const show = (next: { status: string; page: number }) => showList('/store/orders', next)
  const setPage = (n: number) => show({ status, page: n })
  rememberList('/store/orders', query)
  const orders = useLoad(() => call<Page<Order>>('GET', '/store/orders', { query: { status, page, pageSize: 20 } }), [status, page])
  const actions = useOrderActions(() => orders.reload())
  const { action } = actions
  return (
    <Section
      title="Orders"
      actions={
        <Field label="Status">
          <select value={status} onChange={(e) => show({ status: e.currentTarget.value, page: 1 })}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
      }
    >
      <ErrorNote error={action.error} />
      <Done message={action.done} />
      <Paged state={orders} empty={`No orders${status && ` with status ${status}`} yet. Orders appear when a customer of your shop checks out.`} onPage={setPage}>
        {(rows) => (
          <Table columns={['Order', 'Customer', 'Items', { label: 'Total', num: true }, 'Status', 'Actions']}>
            {rows.map((order) => (
              <tr key={order.id} aria-label={`Order #${order.number}`}>
                <td>
                  <a href={`#/store/orders/${order.id}`}>#{order.number}</a>
                  <small>{when(order.createdAt)}</small>
                </td>
                <td>
                  {order.customer.name}
                  <small class="email">{order.customer.email}</small>
                </td>
                <td>
                  {order.items.map((item) => (
                    <div key={item.variantId}>
                      {item.quantity} × {item.name} <small>{item.sku}</small>
                    </div>
                  ))}
                </td>
                <td class="num">{money(order.total)}</td>
                <td>
                  <span class={`badge ${TONE[order.status] ?? ''}`}>{order.status}</span>
                  {order.shipment?.trackingCode && <small>tracking {order.shipment.trackingCode}</small>}
                </td>
                <td>
                  <OrderActions order={order} actions={actions} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Paged>
    </Section>
  )
}
