import { describe, expect, test } from 'bun:test'
import { MAX_OPTIONS, MAX_VARIANTS_PER_CREATE } from '../../src/features/catalog/model'
import { catalogSetup } from '../helpers/catalog'
import { expectOk } from '../helpers/world'

const tee = (sku: string, size: string, over: Record<string, unknown> = {}) => ({ sku, price: 49.9, stock: 5, options: { size }, ...over })

/** Rows of a table, deleted ones included: what a refused create must not have written. */
const rowsOf = (t: Awaited<ReturnType<typeof catalogSetup>>, table: string) => (t.deps.sqlite.query(`select count(*) as n from ${table}`).get() as { n: number }).n

describe('POST /v1/products with variants', () => {
  test('creates the product and every variant in one call, each with its sku, price, stock, options and ledger', async () => {
    const t = await catalogSetup()
    const product = await expectOk(
      t.A.send('POST', '/v1/products', {
        name: 'Camiseta',
        state: 'PUBLISHED',
        variants: [tee('TEE-P', 'P', { stock: 3, minStock: 1 }), tee('TEE-M', 'M', { price: 54.9, stock: 0 }), tee('TEE-G', 'G', { price: 59.9, stock: 7 })],
      }),
      201,
    )
    expect(product.variants.map((v: any) => [v.sku, v.price, v.stock, v.available, v.minStock, v.options])).toEqual([
      ['TEE-P', 49.9, 3, 3, 1, { size: 'P' }],
      ['TEE-M', 54.9, 0, 0, 5, { size: 'M' }],
      ['TEE-G', 59.9, 7, 7, 5, { size: 'G' }],
    ])
    expect(product).toMatchObject({ name: 'Camiseta', state: 'PUBLISHED', sku: 'TEE-P', price: 49.9, stock: 10 })
    expect(await t.A.product(product.id)).toEqual(product)
    const ledger = async (variantId: string) => (await t.A.send('GET', `/v1/variants/${variantId}/stock/movements`)).body.data.map((m: any) => [m.kind, m.quantity, m.reason])
    expect(await ledger(product.variants[0].id)).toEqual([['RECEIVE', 3, 'initial stock']])
    expect(await ledger(product.variants[1].id)).toEqual([])
    expect(await ledger(product.variants[2].id)).toEqual([['RECEIVE', 7, 'initial stock']])
  })

  test(`${MAX_VARIANTS_PER_CREATE} variants and a long description write the product's search row once, not once per variant; the search finds every part of it`, async () => {
    const t = await catalogSetup()
    // Every time the search index is given the product's row, the same condition as its triggers'
    // (the insert of a live product, or a change of one of these columns leaving it live) counts one.
    t.deps.sqlite.run('create temp table indexed (product_id text)')
    t.deps.sqlite.run('create temp trigger indexed_insert after insert on main.products when new.deleted_at is null begin insert into indexed values (new.id); end')
    t.deps.sqlite.run(
      'create temp trigger indexed_update after update of name, description, deleted_at, state, store_id on main.products when new.deleted_at is null begin insert into indexed values (new.id); end',
    )
    const description = Array.from({ length: 450 }, (_, i) => `palavra${i}`).join(' ')
    const variants = Array.from({ length: MAX_VARIANTS_PER_CREATE }, (_, i) => tee(`LONGA-${i}-ALGODAO`, String(i)))
    const product = await expectOk(t.A.send('POST', '/v1/products', { name: 'Camiseta longa', description, state: 'PUBLISHED', variants }), 201)
    expect(t.deps.sqlite.query('select product_id from indexed').all()).toEqual([{ product_id: product.id }])
    const found = async (search: string) => (await t.A.send('GET', `/v1/products?search=${encodeURIComponent(search)}`)).body.data.map((p: { id: string }) => p.id)
    expect([await found('ALGODAO'), await found('palavra449'), await found('camiseta longa')]).toEqual([[product.id], [product.id], [product.id]])
    expect((await t.A.send('GET', '/v1/products?state=PUBLISHED')).body.total).toBe(1)
  })

  test(`takes up to ${MAX_VARIANTS_PER_CREATE} variants; the document states the bound`, async () => {
    const t = await catalogSetup()
    const variants = Array.from({ length: MAX_VARIANTS_PER_CREATE }, (_, i) => tee(`MANY-${i}`, String(i), { stock: i }))
    const product = await expectOk(t.A.send('POST', '/v1/products', { name: 'Many sizes', variants }), 201)
    expect(product.variants).toHaveLength(MAX_VARIANTS_PER_CREATE)
    expect(product.variants.at(-1)).toMatchObject({ sku: `MANY-${MAX_VARIANTS_PER_CREATE - 1}`, stock: MAX_VARIANTS_PER_CREATE - 1 })
    const over = await t.A.send('POST', '/v1/products', { name: 'Too many', variants: [...variants.map((v) => ({ ...v, sku: `X${v.sku}` })), tee('ONE-MORE', 'extra')] })
    expect(over.status).toBe(400)
    expect(over.body.error.details).toEqual([{ path: 'variants', message: 'variants holds at most 100, the most a product has: sell the others as another product' }])
    const operation = (await t.call('GET', '/openapi.json')).body.paths['/v1/products'].post
    expect(operation.requestBody.content['application/json'].schema.properties.variants.maxItems).toBe(MAX_VARIANTS_PER_CREATE)
    expect(operation.description).toContain(`\`variants\`, 1 to ${MAX_VARIANTS_PER_CREATE}`)
  })

  test(`a variant has at most ${MAX_OPTIONS} options, on every route that sets them; the document states the bound`, async () => {
    const t = await catalogSetup()
    const three = { size: 'M', color: 'azul', material: 'algodão' }
    const four = { ...three, fit: 'slim' }
    const message = 'a variant has at most 3 options (such as size, color and material); combine the others into one'
    const product = await expectOk(t.A.send('POST', '/v1/products', { name: 'Three options', variants: [{ sku: 'OPT-3', price: 1, stock: 1, options: three }] }), 201)
    expect(product.variants[0].options).toEqual(three)
    const created = await t.A.send('POST', '/v1/products', { name: 'Four options', variants: [{ sku: 'OPT-4', price: 1, stock: 1, options: four }] })
    expect([created.status, created.body.error.details]).toEqual([400, [{ path: 'variants.0.options', message }]])
    const added = await t.A.send('POST', `/v1/products/${product.id}/variants`, { sku: 'OPT-4B', price: 1, stock: 1, options: four })
    expect([added.status, added.body.error.details]).toEqual([400, [{ path: 'options', message }]])
    const patched = await t.A.send('PATCH', `/v1/variants/${product.variants[0].id}`, { options: four })
    expect([patched.status, patched.body.error.details]).toEqual([400, [{ path: 'options', message }]])
    expect((await t.A.product(product.id)).variants.map((v: any) => v.options)).toEqual([three])
    const schema = (await t.call('GET', '/openapi.json')).body.paths['/v1/products/{id}/variants'].post.requestBody.content['application/json'].schema
    expect(schema.properties.options.maxProperties).toBe(MAX_OPTIONS)
  })

  test('option names are trimmed, and two that trimming would make one, an empty one or a long one are refused in words', async () => {
    const t = await catalogSetup()
    const variant = (options: Record<string, string>) => t.A.send('POST', '/v1/products', { name: 'Opções', variants: [{ sku: `OPN-${Math.random()}`.replace('.', ''), price: 1, stock: 1, options }] })
    const problems = async (options: Record<string, string>) => {
      const res = await variant(options)
      return [res.status, res.body.error.details]
    }
    expect(await problems({ size: 'M', ' size ': 'G' })).toEqual([
      400,
      [{ path: 'variants.0.options', message: 'option names "size" and " size " are the same name once the whitespace around it is trimmed; send it once' }],
    ])
    expect(await problems({ color: 'azul', '\tcolor\n': 'verde' })).toEqual([
      400,
      [{ path: 'variants.0.options', message: 'option names "color" and "\\tcolor\\n" are the same name once the whitespace around it is trimmed; send it once' }],
    ])
    expect(await problems({ '  ': 'M' })).toEqual([400, [{ path: 'variants.0.options', message: 'an option name is required: name what the variant differs in, e.g. "size"' }]])
    expect(await problems({ ['x'.repeat(41)]: 'M' })).toEqual([400, [{ path: 'variants.0.options', message: 'an option name has at most 40 characters' }]])
    expect(await problems({ ' __proto__ ': 'M' })).toEqual([400, [{ path: 'variants.0.options', message: 'an option name cannot be "__proto__" (JavaScript treats it as special): choose another name' }]])
    expect(await problems({ size: ' ' })).toEqual([400, [{ path: 'variants.0.options.size', message: 'an option value is required: send the choice, e.g. "M"' }]])
    expect(await problems({ size: 'x'.repeat(81) })).toEqual([400, [{ path: 'variants.0.options.size', message: 'an option value has at most 80 characters' }]])
    expect(rowsOf(t, 'variants')).toBe(0)
    const made = await expectOk(variant({ ' size ': ' M ', [` ${'c'.repeat(40)} `]: 'azul', 'material\n': 'algodão' }), 201)
    expect(made.variants[0].options).toEqual({ size: 'M', ['c'.repeat(40)]: 'azul', material: 'algodão' })
  })

  test('names, descriptions and options refuse control characters and half characters, each six bytes of every page that shows them; a description keeps its lines', async () => {
    const t = await catalogSetup()
    const create = (over: Record<string, unknown>) => t.A.send('POST', '/v1/products', { name: 'Camiseta', variants: [{ sku: `CC-${Math.random()}`.replace('.', ''), price: 1, stock: 1, options: { size: 'M' } }], ...over })
    const problems = async (over: Record<string, unknown>) => {
      const res = await create(over)
      return [res.status, res.body.error.details]
    }
    expect(await problems({ name: 'Cami\u0001seta' })).toEqual([400, [{ path: 'name', message: 'name holds a control character (U+0001 at position 5); remove control characters, newlines and tabs included' }]])
    expect(await problems({ description: 'linha\u001b[2J' })).toEqual([400, [{ path: 'description', message: 'description holds a control character (U+001B at position 6); remove control characters' }]])
    expect(await problems({ name: 'meio \ud800 caractere' })).toEqual([
      400,
      [{ path: 'name', message: 'name holds half of a character (U+D800 at position 6, a surrogate without its pair); send the text as it was typed, in UTF-8' }],
    ])
    const options = { 'ta\u0001manho': 'M', cor: 'azul\udc00' }
    expect(await problems({ variants: [{ sku: 'CC-OPT', price: 1, stock: 1, options }] })).toEqual([
      400,
      [
        { path: 'variants.0.options.cor', message: 'an option value holds half of a character (U+DC00 at position 5, a surrogate without its pair); send the text as it was typed, in UTF-8' },
        { path: 'variants.0.options', message: 'an option name holds a control character (U+0001 at position 3); remove control characters, newlines and tabs included' },
      ],
    ])
    const kept = await expectOk(create({ name: 'Camiseta 😀', description: 'Linha 1\r\nLinha 2\tfim', variants: [{ sku: 'CC-OK', price: 1, stock: 1, options: { tamanho: 'M', cor: 'azul 💙' } }] }), 201)
    expect([kept.name, kept.description, kept.variants[0].options]).toEqual(['Camiseta 😀', 'Linha 1\r\nLinha 2\tfim', { tamanho: 'M', cor: 'azul 💙' }])
  })

  test('either sku, price and stock or variants: both, neither or an empty list is a 400 naming the fields, and nothing is created', async () => {
    const t = await catalogSetup()
    const both = await t.A.send('POST', '/v1/products', { name: 'Both', sku: 'B-1', price: 1, stock: 1, minStock: 2, variants: [tee('B-2', 'M')] })
    expect(both.status).toBe(400)
    expect(both.body.error.details.map((d: any) => d.path)).toEqual(['sku', 'price', 'stock', 'minStock'])
    expect(both.body.error.details[0].message).toBe(
      'sku belongs in each variant when variants is sent: send either sku, price and stock (one variant) or variants (several), not both',
    )
    const neither = await t.A.send('POST', '/v1/products', { name: 'Neither', stock: 1 })
    expect(neither.body.error.details).toEqual([
      { path: 'sku', message: 'sku is required (or send variants: [{sku, price, stock, options}] for several variants)' },
      { path: 'price', message: 'price is required (or send variants: [{sku, price, stock, options}] for several variants)' },
    ])
    const empty = await t.A.send('POST', '/v1/products', { name: 'Empty', variants: [] })
    expect(empty.body.error.details).toEqual([{ path: 'variants', message: 'variants needs at least one variant' }])
    const bad = await t.A.send('POST', '/v1/products', { name: 'Bad price', variants: [tee('OK-1', 'M'), tee('BAD-1', 'L', { price: 1.001, stock: -1 })] })
    expect(bad.body.error.details).toEqual([
      { path: 'variants.1.price', message: 'must have at most 2 decimals, e.g. 19.99 (round a computed amount to cents: Math.round(x * 100) / 100)' },
      { path: 'variants.1.stock', message: 'must not be negative' },
    ])
    for (const res of [both, neither, empty, bad]) expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_ERROR'])
    expect([rowsOf(t, 'products'), rowsOf(t, 'variants')]).toEqual([0, 0])
  })

  test('all or nothing: a sku of the store, a sku twice in the list, or two variants with the same options is 409 and writes nothing', async () => {
    const t = await catalogSetup()
    await t.A.createProduct({ sku: 'TAKEN', stock: 4 })
    const before = [rowsOf(t, 'products'), rowsOf(t, 'variants'), rowsOf(t, 'stock_movements')]
    const taken = await t.A.send('POST', '/v1/products', { name: 'Clash', variants: [tee('NEW-1', 'P'), tee('taken', 'M')] })
    expect(taken.status).toBe(409)
    expect(taken.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining("The sku 'taken' is already used by a variant of this store") })
    const twice = await t.A.send('POST', '/v1/products', { name: 'Twice', variants: [tee('DUP-1', 'P'), tee('NEW-2', 'M'), tee('dup-1', 'G')] })
    expect(twice.status).toBe(409)
    expect(twice.body.error).toEqual({
      code: 'CONFLICT',
      message: "The sku 'dup-1' is given to two variants (SKUs are compared ignoring case). Give each variant its own sku; nothing was created.",
    })
    const twins = await t.A.send('POST', '/v1/products', { name: 'Twins', variants: [tee('TW-1', 'M'), tee('TW-2', 'M')] })
    expect(twins.status).toBe(409)
    expect(twins.body.error.message).toContain('Variant TW-1 of this product already has the options {"size":"M"}')
    expect([rowsOf(t, 'products'), rowsOf(t, 'variants'), rowsOf(t, 'stock_movements')]).toEqual(before)
    expect((await t.A.list()).total).toBe(1)
    // Nothing of the refused calls holds a sku: all of them can be used now.
    const fine = await expectOk(t.A.send('POST', '/v1/products', { name: 'Fine', variants: [tee('NEW-1', 'P'), tee('DUP-1', 'M'), tee('TW-1', 'G')] }), 201)
    expect(fine.variants.map((v: any) => v.sku)).toEqual(['NEW-1', 'DUP-1', 'TW-1'])
  })
})
