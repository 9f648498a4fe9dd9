import type { Page } from '../api'
import { Done, ErrorNote, Loaded, Section, Table, useLoad, when } from '../ui'
import { OrderActions, useOrderActions } from './order-actions'
import { useStudent } from './context'
import { listAddress } from '../router'
import type { Delivery, Order } from './types'

const TONE: Record<string, string> = { SUCCEEDED: 'good', FAILED: 'bad', APPROVED: 'good', DECLINED: 'bad' }

/** One order whole: GET /v1/store/orders/:id and the deliveries of its events (GET /v1/webhooks/deliveries?orderId=). */
export function OrderPage({ id }: { id: string }) {
  const { call, money } = useStudent()
  const order = useLoad(() => call<Order>('GET', `/store/orders/${encodeURIComponent(id)}`), [id])
  // The same moves as the list's, so a phone, where the list's last column is off screen, has them here.
  const actions = useOrderActions(() => {
    order.reload()
    deliveries.reload()
  })
  const deliveries = useLoad(() => call<Page<Delivery>>('GET', '/webhooks/deliveries', { query: { orderId: id, pageSize: 100 } }), [id])
  return (
    <>
      <p>
        <a href={listAddress('/store/orders')}>← All orders</a>
      </p>
      <Loaded state={order}>
        {(o) => (
          <Section title={`Order #${o.number}`}>
            <dl>
              <dt>Status</dt>
              <dd>
                <span class="badge">{o.status}</span>
                {o.cancelReason && ` (${o.cancelReason.toLowerCase()})`}
              </dd>
              <dt>Customer</dt>
              <dd>
                {o.customer.name} · {o.customer.email}
              </dd>
              <dt>Total</dt>
              <dd>{money(o.total)}</dd>
              {o.shipment && (
                <>
                  <dt>Tracking</dt>
                  <dd>{o.shipment.trackingCode ?? 'none'}</dd>
                </>
              )}
            </dl>
            <section aria-label="Actions of this order">
              <OrderActions order={o} actions={actions} />
              <ErrorNote error={actions.action.error} />
              <Done message={actions.action.done} />
            </section>
            <Table caption={{ text: 'Items' }} columns={['Product', 'SKU', { label: 'Unit price', num: true }, { label: 'Quantity', num: true }, { label: 'Line total', num: true }]}>
              {o.items.map((i) => (
                <tr key={i.variantId}>
                  <th scope="row">{i.name}</th>
                  <td>{i.sku}</td>
                  <td class="num">{money(i.unitPrice)}</td>
                  <td class="num">{i.quantity}</td>
                  <td class="num">{money(i.lineTotal)}</td>
                </tr>
              ))}
            </Table>
            <Table caption={{ text: 'History' }} columns={['Status', 'Since']}>
              {o.history.map((h) => (
                <tr key={h.status}>
                  <th scope="row">{h.status}</th>
                  <td>{when(h.at)}</td>
                </tr>
              ))}
            </Table>
            {o.payments.length === 0 ? (
              <p class="muted">No payment attempts yet.</p>
            ) : (
              <Table caption={{ text: 'Payments' }} columns={['Method', 'Result', { label: 'Amount', num: true }, { label: 'Installments', num: true }, 'Time']}>
                {o.payments.map((p) => (
                  <tr key={p.id}>
                    <th scope="row">{p.method}</th>
                    <td>
                      <span class={`badge ${TONE[p.status] ?? ''}`}>{p.status}</span>
                    </td>
                    <td class="num">{money(p.amount)}</td>
                    <td class="num">{p.installments}</td>
                    <td>{when(p.createdAt)}</td>
                  </tr>
                ))}
              </Table>
            )}
            {o.refunds.length > 0 && (
              <Table caption={{ text: 'Refunds' }} columns={[{ label: 'Amount', num: true }, 'Restocked', 'Reason', 'Time']}>
                {o.refunds.map((r) => (
                  <tr key={r.id}>
                    <td class="num">{money(r.amount)}</td>
                    <td>{r.restock ? 'yes' : 'no'}</td>
                    <td>{r.reason ?? '—'}</td>
                    <td>{when(r.createdAt)}</td>
                  </tr>
                ))}
              </Table>
            )}
          </Section>
        )}
      </Loaded>
      <Section title="Webhook deliveries of this order">
        <Loaded state={deliveries}>
          {(page) =>
            page.total === 0 ? (
              <p class="muted">None: no endpoint was registered when this order's events happened, or none listens to them.</p>
            ) : (
              <Table columns={['Event', 'Attempt', 'Status', 'Answer', 'Time']}>
                {page.data.map((d) => (
                  <tr key={d.id}>
                    <th scope="row">{d.eventType}</th>
                    <td>{d.attempt}</td>
                    <td>
                      <span class={`badge ${TONE[d.status] ?? ''}`}>{d.status}</span>
                    </td>
                    <td>{d.responseStatus ?? d.error ?? '—'}</td>
                    <td>{when(d.sentAt ?? d.scheduledAt)}</td>
                  </tr>
                ))}
              </Table>
            )
          }
        </Loaded>
        <p>
          <a href="#/store/webhooks">All webhook deliveries</a>
        </p>
      </Section>
    </>
  )
}
