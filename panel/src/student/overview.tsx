import type { Overview } from './types'
import { Loaded, Section, Table, useLoad, when } from '../ui'
import { useStudent } from './context'
import { RecentErrors } from './recent-errors'

const ORDER_ORDER = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED', 'REFUNDED'] as const

/** The landing page: GET /v1/store/overview and the app's recent errors from the request inspector. */
export function OverviewPage() {
  const { call, money } = useStudent()
  const overview = useLoad(() => call<Overview>('GET', '/store/overview'))
  return (
    <Section title="Overview">
      <Loaded state={overview}>
        {(o) => (
          <>
            <div class="cards stats">
              <a class="card" href="#/store/catalog" aria-label={`Products: ${o.products.PUBLISHED} published, ${o.products.DRAFT} drafts, ${o.products.ARCHIVED} archived`}>
                <span>Products</span>
                <strong>{o.products.PUBLISHED} published</strong>
                <small>
                  {o.products.DRAFT} drafts · {o.products.ARCHIVED} archived
                </small>
              </a>
              <a class="card" href="#/store/orders" aria-label={`Paid today: ${o.orders.paidToday.orders} orders, ${money(o.orders.paidToday.amount)}`}>
                <span>Paid today</span>
                <strong>{money(o.orders.paidToday.amount)}</strong>
                <small>
                  {o.orders.paidToday.orders} orders paid since midnight ({o.today.timeZone}), refunds not taken off
                </small>
              </a>
            </div>
            <Table caption={{ text: 'Orders by status' }} columns={ORDER_ORDER.map((s) => ({ label: s, num: true }))}>
              <tr>
                {ORDER_ORDER.map((s) => (
                  <td key={s} class="num">
                    {o.orders.byStatus[s]}
                  </td>
                ))}
              </tr>
            </Table>
            {/* What the app got wrong comes first: on a phone it is the first thing under the numbers. */}
            <RecentErrors />
            <h3>Low stock</h3>
            {o.lowStock.total === 0 ? (
              <p class="muted">Every variant has more units available than its minimum.</p>
            ) : (
              <Table
                caption={{ text: `${o.lowStock.total > 1000 ? 'More than 1,000' : o.lowStock.total} variants at or below their minimum${o.lowStock.total > o.lowStock.data.length ? `; the ${o.lowStock.data.length} furthest below` : ''}` }}
                columns={['Product', 'SKU', { label: 'Available', num: true }, { label: 'Minimum', num: true }]}
              >
                {o.lowStock.data.map((v) => (
                  <tr key={v.variantId}>
                    <th scope="row">{v.productName}</th>
                    <td>{v.sku}</td>
                    <td class="num">{v.available}</td>
                    <td class="num">{v.minStock}</td>
                  </tr>
                ))}
              </Table>
            )}
            <h3>Webhooks</h3>
            {o.webhooks.failing.length === 0 ? (
              <p class="muted">No failed deliveries in the last 24 hours.</p>
            ) : (
              <ul class="plain" aria-label="Endpoints with failed deliveries in the last 24 hours">
                <li class="muted">Failed deliveries in the last 24 hours, even if a later one succeeded:</li>
                {o.webhooks.failing.map((w) => (
                  <li key={w.webhookId}>
                    <span class="badge bad">{w.failed} failed</span> <code>{w.url}</code> <small>last {when(w.lastFailedAt)}</small>
                  </li>
                ))}
                <li>
                  <a href="#/store/webhooks">See every delivery</a>
                </li>
              </ul>
            )}
            <h3>API keys</h3>
            {o.apiKeys.length === 0 ? (
              <p class="muted">
                No API keys yet: <a href="#/store/keys">create one</a> for your app.
              </p>
            ) : (
              <Table columns={['Key', 'Kind', 'Last used']}>
                {o.apiKeys.map((k) => (
                  <tr key={k.id}>
                    <th scope="row">
                      {k.name} <small>{k.prefix}…</small>
                    </th>
                    <td>{k.kind}</td>
                    <td>{k.lastUsedAt ? when(k.lastUsedAt) : 'never'}</td>
                  </tr>
                ))}
              </Table>
            )}
          </>
        )}
      </Loaded>
    </Section>
  )
}
