import type { Database } from 'bun:sqlite'
import { perHandle } from '../../kernel/db/per-handle'

/*
 * The cart's statements in SQL, prepared once per connection on bun:sqlite itself. drizzle built the
 * SQL text on every call (bench/README.md), and even prepared it still mapped every row and wrapped
 * every transaction in objects of its own, which a cart add's service call no longer pays; most of what
 * it costs now is BEGIN and COMMIT. The columns are named as the code reads them (`as "createdAt"`), so
 * the rows come out as they are.
 *
 * A line's variant and product are read through scalar subqueries, not joins: the same rows (the
 * foreign keys make every item's variant and product exist), and SQLite runs a lookup by primary key
 * in a subquery for a fraction of what each join costs it (bench/README.md).
 * They are prepared on the connection of the handle they are given (`tx.$client`), so inside a
 * transaction they read and write in it.
 */
const ofVariant = (column: string) => `(select v.${column} from variants v where v.id = cart_items.variant_id)`
const ofProduct = (column: string, productId: string) => `(select p.${column} from products p where p.id = ${productId})`
const ofLineProduct = (column: string) => ofProduct(column, ofVariant('product_id'))

export interface CartRow {
  id: string
  storeId: string
  customerId: string
  createdAt: number
  updatedAt: number
  currency: string
}

interface Product {
  productId: string
  sku: string
  priceCents: number
  stock: number
  reserved: number
  variantDeletedAt: number | null
  name: string
  state: string
  productDeletedAt: number | null
}

export interface LineRow extends Product {
  id: string
  variantId: string
  quantity: number
  createdAt: number
  rowid: number
}

export interface ItemRow {
  id: string
  cartId: string
  storeId: string
  variantId: string
  quantity: number
  createdAt: number
}

type Params = Record<string, string | number>

function build(sqlite: Database) {
  const q = <Row>(sql: string) => sqlite.prepare<Row, [Params]>(sql)
  return {
    // The store's currency comes with the cart: the answer needs it, and a subquery costs no statement.
    cart: q<CartRow>(
      `select id, store_id as "storeId", customer_id as "customerId", created_at as "createdAt", updated_at as "updatedAt",
        (select s.currency from stores s where s.id = carts.store_id) as currency
       from carts where customer_id = $customerId and store_id = $storeId`,
    ),
    insertCart: q<never>(`insert into carts (id, store_id, customer_id, created_at, updated_at) values ($id, $storeId, $customerId, $now, $now)`),
    touchCart: q<never>(`update carts set updated_at = $now where id = $id and store_id = $storeId`),
    item: q<ItemRow>(
      `select id, cart_id as "cartId", store_id as "storeId", variant_id as "variantId", quantity, created_at as "createdAt"
       from cart_items where id = $id and cart_id = $cartId and store_id = $storeId`,
    ),
    insertItem: q<never>(
      `insert into cart_items (id, cart_id, store_id, variant_id, quantity, created_at) values ($id, $cartId, $storeId, $variantId, $quantity, $now)`,
    ),
    setQuantity: q<never>(`update cart_items set quantity = $quantity where id = $id and store_id = $storeId`),
    removeItem: q<never>(`delete from cart_items where id = $id and store_id = $storeId`),
    emptyCart: q<never>(`delete from cart_items where cart_id = $cartId`),
    // A live variant of this store with its product, shaped as a line of `lines`: what an add checks
    // and, for a variant not yet in the cart, its new line.
    variantLine: q<Product>(
      `select product_id as "productId", sku, price_cents as "priceCents", stock, reserved, deleted_at as "variantDeletedAt",
        ${ofProduct('name', 'variants.product_id')} as name,
        ${ofProduct('state', 'variants.product_id')} as state,
        ${ofProduct('deleted_at', 'variants.product_id')} as "productDeletedAt"
       from variants where id = $id and store_id = $storeId and deleted_at is null`,
    ),
    // Unordered: `cartLines` sorts the few lines in JavaScript, for less than SQLite's sorter costs.
    lines: q<LineRow>(
      `select id, variant_id as "variantId", quantity,
        ${ofVariant('product_id')} as "productId",
        ${ofVariant('sku')} as sku,
        ${ofVariant('price_cents')} as "priceCents",
        ${ofVariant('stock')} as stock,
        ${ofVariant('reserved')} as reserved,
        ${ofVariant('deleted_at')} as "variantDeletedAt",
        ${ofLineProduct('name')} as name,
        ${ofLineProduct('state')} as state,
        ${ofLineProduct('deleted_at')} as "productDeletedAt",
        created_at as "createdAt", rowid
       from cart_items where cart_id = $cartId and store_id = $storeId`,
    ),
    currency: q<{ currency: string }>(`select currency from stores where id = $storeId`),
  }
}

export const cartStatements = perHandle(build)
