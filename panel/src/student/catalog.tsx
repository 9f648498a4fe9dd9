import { useState } from 'preact/hooks'
import { Done, ErrorNote, Field, formValues, Paged, Section, Table, useAction, useLoad } from '../ui'
import { useStudent } from './context'
import type { Product, ProductSummary } from './types'
import type { Page } from '../api'

type State = ProductSummary['state']
const STATES: State[] = ['DRAFT', 'PUBLISHED', 'ARCHIVED']
const TONE: Record<State, string> = { DRAFT: 'warn', PUBLISHED: 'good', ARCHIVED: '' }
/** Buttons for the moves a product can make (any state to any other through PUT /v1/products/:id). */
const MOVES: Record<State, { to: State; label: string }[]> = {
  DRAFT: [{ to: 'PUBLISHED', label: 'Publish' }, { to: 'ARCHIVED', label: 'Archive' }],
  PUBLISHED: [{ to: 'DRAFT', label: 'Unpublish' }, { to: 'ARCHIVED', label: 'Archive' }],
  ARCHIVED: [{ to: 'DRAFT', label: 'Restore as draft' }],
}

/** GET /v1/products with search and filters, POST /v1/products, and publishing through PUT. */
export function CatalogPage() {
  const { call, money } = useStudent()
  const [query, setQuery] = useState({ search: '', state: '', page: 1 })
  const products = useLoad(() => call<Page<ProductSummary>>('GET', '/products', { query: { ...query, pageSize: 20 } }), [query])
  const action = useAction()
  const setState = (product: ProductSummary, state: State) =>
    action.run(async () => {
      await call('PUT', `/products/${product.id}`, { body: { state } })
      products.reload()
    }, `"${product.name}" is now ${state}.`)
  // The new product's answer is shown under its form, where the student is (the table may be long).
  const creating = useAction()
  const create = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement
    const { name = '', sku = '', price = '', stock = '' } = formValues(event)
    void creating.run(async () => {
      // The pattern below let only digits and at most two decimals through, after a dot or a comma.
      const product = await call<Product>('POST', '/products', { body: { name, sku, price: Number(price.trim().replace(',', '.')), stock: Number(stock) } })
      form.reset()
      products.reload()
      return product
    }, (p) => `"${p.name}" created as a DRAFT: publish it to sell it.`)
  }
  const search = (event: Event) => {
    const { search = '' } = formValues(event)
    setQuery({ ...query, search, page: 1 })
  }
  return (
    <>
      <Section title="Catalog">
        <form class="inline" onSubmit={search} role="search">
          <Field label="Search">
            <input name="search" type="search" defaultValue={query.search} placeholder="name, sku or description" />
          </Field>
          <Field label="State">
            <select value={query.state} onChange={(e) => setQuery({ ...query, state: e.currentTarget.value, page: 1 })}>
              <option value="">all</option>
              {STATES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </Field>
          <button>Search</button>
        </form>
        <ErrorNote error={action.error} />
        <Done message={action.done} />
        <Paged state={products} empty={`No products${query.search || query.state ? ' match' : ' yet'}.`} onPage={(page) => setQuery({ ...query, page })}>
          {(rows) => (
            <Table columns={[{ label: 'Image', hidden: true }, 'Product', { label: 'Price', num: true }, { label: 'Stock', num: true }, 'Rating', 'State', 'Actions']}>
              {rows.map((p) => (
                <tr key={p.id} aria-label={p.name}>
                  <td>{p.image ? <img class="thumb" src={p.image} alt="" loading="lazy" /> : <span class="thumb" />}</td>
                  <td>
                    <strong>{p.name}</strong>
                    <small>
                      {p.sku} · <code>{p.id}</code>
                    </small>
                    {p.variants.length > 1 && (
                      <details>
                        <summary>{p.variants.length} variants</summary>
                        <ul>
                          {p.variants.map((v) => (
                            <li key={v.id}>
                              {v.sku} {Object.values(v.options).join(' / ')}: {money(v.price)}, {v.available} available
                            </li>
                          ))}
                        </ul>
                      </details>
                    )}
                  </td>
                  <td class="num">{money(p.price)}</td>
                  <td class="num">{p.stock}</td>
                  <td>{p.rating.count ? `${p.rating.average.toFixed(1)} ★ (${p.rating.count})` : '—'}</td>
                  <td>
                    <span class={`badge ${TONE[p.state]}`}>{p.state}</span>
                  </td>
                  <td>
                    <div class="actions">
                      {MOVES[p.state].map((m) => (
                        <button key={m.to} type="button" class={m.to === 'PUBLISHED' ? 'primary' : ''} disabled={action.busy} onClick={() => setState(p, m.to)}>
                          {m.label}
                        </button>
                      ))}
                    </div>
                  </td>
                </tr>
              ))}
            </Table>
          )}
        </Paged>
      </Section>
      <Section title="New product">
        <form class="inline" onSubmit={create}>
          <Field label="Name">
            <input name="name" required />
          </Field>
          <Field label="SKU">
            <input name="sku" required size={12} />
          </Field>
          <Field label="Price">
            {/* Text, not a number field: a browser's number field read the comma of "19,90" as a
                thousands separator and sent 1990. A comma or a dot, then at most two decimals. */}
            <input name="price" inputMode="decimal" required size={8} placeholder="19,90" pattern="\s*\d+([.,]\d{1,2})?\s*" title="a price such as 19,90 or 19.90: digits, then at most two decimals" />
          </Field>
          <Field label="Stock">
            <input name="stock" type="number" min="0" step="1" required size={6} />
          </Field>
          <button class="primary" disabled={creating.busy}>
            Create product
          </button>
        </form>
        <ErrorNote error={creating.error} />
        <Done message={creating.done} />
        <p class="muted">Variants, images, categories and stock movements: see the Catalog and Media sections of <a href="/docs">the API reference</a>.</p>
      </Section>
    </>
  )
}
