import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { Page, PageQuery } from '../../kernel/pagination'
import { visibilityOf } from './find'
import type { CatalogDeps } from './images'
import { listKey, listProducts } from './list'
import { AddVariantBody, AdjustBody, CreateProductBody, IdParams, MAX_VARIANTS_PER_CREATE, PatchVariantBody, Product, ProductListQuery, ProductPage, ReceiveBody, StockMovement, UpdateProductBody, Variant } from './model'
import { createProduct, deleteProduct, getProduct, updateProduct } from './products'
import { jsonResponse } from '../../kernel/http/json-response'
import { catalogReadCache } from './read-cache'
import { listMovements } from './stock'
import { addVariant, adjustStock, getVariant, MAX_VARIANTS_PER_PRODUCT, patchVariant, receiveStock } from './variants'
import { noContent } from '../../kernel/http/no-content'
import { readTransaction } from '../../kernel/db/database'
import { created } from '../../kernel/http/created'

const tags = ['Catalog']
const stockTags = ['Stock']

export const productRoutes = (deps: CatalogDeps) => {
  // Reads are served from the cache while the store's catalog is unchanged. Their bodies are built to
  // the schemas below, which the test suite holds them to (kernel/http/answer-check.ts).
  const cache = catalogReadCache(deps)
  return new Elysia({ prefix: '/products' })
    .use(authMacro)
    .get('/', ({ ctx, query, request }) => {
      const urlBase = deps.publicUrl.for(request)
      // Kept per what the caller sees (find.ts) and the query it may ask: a list made for the secret
      // key is never served to a publishable one.
      const list = listKey(ctx, query)
      const body = cache.read(ctx.storeId, urlBase, list, (remember) => {
        const page = listProducts(deps, ctx, list.shown, urlBase, undefined, remember)
        return { body: page, shows: page.data.map((p) => p.id) }
      })
      return jsonResponse(body)
    }, {
      auth: 'shop',
      query: ProductListQuery,
      response: { 200: ProductPage, 400: ErrorEnvelope, 403: ErrorEnvelope },
      detail: {
        tags,
        summary: 'List and search products',
        description:
          'With the secret key or a student token every state is listed unless `state` is given. A publishable key (pk_...) lists PUBLISHED products only, and `total` counts only those: `state` may be left out or PUBLISHED; `state=DRAFT` or `ARCHIVED` with it is 403 SECRET_KEY_REQUIRED (drafts are read with the secret key, from your app\u2019s server). `search` finds words in name, sku and description, ignoring case and accents ("acai" finds "Açaí"; "cami" finds "Camiseta"). Prices filter and sort on the product price, its cheapest variant. Each item carries its variants, its cover image URL and its rating.',
      },
    })
    .post(
      '/',
      ({ ctx, body, set, request }) => created(set, createProduct(deps, ctx, body, deps.publicUrl.for(request)), (id) => `/v1/products/${id}`),
      {
        auth: 'secret',
        body: CreateProductBody,
        response: { 201: Product, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Create a product',
          description:
            `Send either \`sku\`, \`price\` and \`stock\` (and optionally \`minStock\`): the product gets one variant with them; or \`variants\`, 1 to ${MAX_VARIANTS_PER_CREATE} (more is 400) of \`{sku, price, stock, options, minStock?}\`, to create a product with several variants in one call, e.g. \`"variants": [{"sku": "TEE-M", "price": 49.9, "stock": 10, "options": {"size": "M"}}, {"sku": "TEE-L", "price": 49.9, "stock": 8, "options": {"size": "L"}}]\`. Both forms at once, or neither, is 400 naming the fields. The variant ids are what carts take. New products are DRAFT unless \`state\` says otherwise. Each initial stock is the first RECEIVE of its variant's stock ledger. All or nothing: a sku already used in the store, a sku given twice in \`variants\` (SKUs are compared ignoring case) or two variants with the same \`options\` is 409 CONFLICT and creates nothing; a categoryId, brandId or collectionId that is not this store\u2019s is 404. More variants can be added later with POST /v1/products/:id/variants, up to ${MAX_VARIANTS_PER_PRODUCT} in all.`,
        },
      },
    )
    .get('/:id', ({ ctx, params, request }) => {
      const urlBase = deps.publicUrl.for(request)
      const find = () => readTransaction(deps.db, (tx) => getProduct({ db: tx, productImages: deps.productImages }, ctx, params.id, urlBase))
      const key = `product ${visibilityOf(ctx)} ${params.id}`
      return jsonResponse(cache.read(ctx.storeId, urlBase, key, () => ({ body: find(), shows: [params.id] })))
    }, {
      auth: 'shop',
      params: IdParams,
      response: { 200: Product, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: 'One product with its variants, images and rating',
        description:
          'With a publishable key (pk_...) only a PUBLISHED product is found: a DRAFT or ARCHIVED one is 404 NOT_FOUND, the same answer as an unknown id. The secret key and student tokens read every state.',
      },
    })
    .put('/:id', ({ ctx, params, body, request }) => updateProduct(deps, ctx, params.id, body, deps.publicUrl.for(request)), {
      auth: 'secret',
      params: IdParams,
      body: UpdateProductBody,
      response: { 200: Product, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Change base data and state',
        description:
          'Send any subset of name, description, state (DRAFT, PUBLISHED, ARCHIVED: any move is allowed), categoryId and brandId (null clears them) and collectionIds (replaces the list). Price and sku are per variant (PATCH /v1/variants/:id); stock changes through the stock endpoints: sending them here is a 400 that says so.',
      },
    })
    .delete(
      '/:id',
      ({ ctx, params }) => {
        deleteProduct(deps, ctx, params.id)
        return noContent()
      },
      {
        auth: 'secret',
        params: IdParams,
        response: { 404: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Delete a product',
          description: 'It leaves every list, search and cart at once, with its variants; orders already placed keep their own copy of name, sku and price. Its SKUs can be used again. 204 with no body.',
        },
      },
    )
    .post(
      '/:id/variants',
      ({ ctx, params, body, set }) => created(set, addVariant(deps, ctx, params.id, body), (id) => `/v1/variants/${id}`),
      {
        auth: 'secret',
        params: IdParams,
        body: AddVariantBody,
        response: { 201: Variant, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Add a variant',
          description:
            'Another sellable version of the product, told apart by `options` (e.g. {"size": "L"}); two variants of a product cannot have the same options (409). The product price becomes its cheapest variant\u2019s. ' +
            `A product has at most ${MAX_VARIANTS_PER_PRODUCT} variants: one more is 409 LIMIT_REACHED.`,
        },
      },
    )
}

export const variantRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/variants' })
    .use(authMacro)
    .get('/:id', ({ ctx, params }) => getVariant(deps, ctx, params.id), {
      auth: 'shop',
      params: IdParams,
      response: { 200: Variant, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: 'One variant',
        description: 'With a publishable key (pk_...) only a variant of a PUBLISHED product is found: one of a DRAFT or ARCHIVED product is 404 NOT_FOUND, as an unknown id.',
      },
    })
    .patch('/:id', ({ ctx, params, body }) => patchVariant(deps, ctx, params.id, body), {
      auth: 'secret',
      params: IdParams,
      body: PatchVariantBody,
      response: { 200: Variant, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Change price, sku, minStock or options',
        description: 'Never stock: that changes through POST /v1/variants/:id/stock/receive or /adjust, so that every change is in the ledger.',
      },
    })
    .post('/:id/stock/receive', ({ ctx, params, body }) => receiveStock(deps, ctx, params.id, body), {
      auth: 'secret',
      params: IdParams,
      body: ReceiveBody,
      response: { 200: Variant, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: { tags: stockTags, summary: 'Receive stock', description: 'Adds `quantity` units (a delivery arrived). Recorded as a RECEIVE movement with `note` as its reason.' },
    })
    .post('/:id/stock/adjust', ({ ctx, params, body }) => adjustStock(deps, ctx, params.id, body), {
      auth: 'secret',
      params: IdParams,
      body: AdjustBody,
      response: { 200: Variant, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: {
        tags: stockTags,
        summary: 'Correct stock',
        description:
          'A signed correction with its reason (breakage, a count). Stock may not fall below the units reserved by pending orders: that is 409 INSUFFICIENT_STOCK with the levels in details. When available falls to minStock or below, product.low_stock is sent.',
      },
    })
    .get('/:id/stock/movements', ({ ctx, params, query }) => listMovements(deps, ctx, params.id, query), {
      auth: 'secret',
      params: IdParams,
      query: PageQuery,
      response: { 200: Page(StockMovement), 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags: stockTags,
        summary: 'The stock ledger of a variant',
        description: 'Every change, newest first: RECEIVE, ADJUST (from the stock endpoints), RESERVE, RELEASE, SALE, RETURN (from orders), each with its reason and the levels it left.',
      },
    })
