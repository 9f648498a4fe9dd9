import { describe, expect, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { listProducts } from '../../src/features/catalog/list'
import { ProductListQuery } from '../../src/features/catalog/model'
import { productRatings } from '../../src/features/catalog/tables'
import { writeTransaction } from '../../src/kernel/db/database'
import { catalogSetup, storeCtx } from '../helpers/catalog'
import { statementsOf } from '../helpers/statement-log'
import { expectTimedInTurnWithinBaseline } from '../helpers/limits'
import { expectOk } from '../helpers/world'

const names = (page: { data: { name: string }[] }) => page.data.map((p) => p.name)

describe('GET /v1/products', () => {
  test("lists newest first with variants, image and rating; pages never overlap; another store's products never show", async () => {
    const { A, B, clock } = await catalogSetup()
    for (const name of ['one', 'two', 'three', 'four', 'five']) {
      await A.createProduct({ name })
      clock.advance(1000)
    }
    await B.createProduct({ name: 'of B' })
    const first = await A.list('pageSize=2')
    expect(first).toMatchObject({ page: 1, pageSize: 2, total: 5 })
    expect(names(first)).toEqual(['five', 'four'])
    expect(first.data[0]).toMatchObject({ image: null, rating: { average: 0, count: 0 }, variants: [{ stock: 10, available: 10 }] })
    expect(first.data[0].images).toBeUndefined()
    expect(names(await A.list('pageSize=2&page=2'))).toEqual(['three', 'two'])
    expect(names(await A.list('pageSize=2&page=3'))).toEqual(['one'])
    expect((await A.list('pageSize=2&page=4')).data).toEqual([])
    expect(names(await B.list())).toEqual(['of B'])
  })

  test('filters by state, category, brand, collection and price, alone and together, with a matching total', async () => {
    const { A, B } = await catalogSetup()
    const cat = await A.createTerm('categories', 'Roupas')
    const brand = await A.createTerm('brands', 'Nike')
    const col = await A.createTerm('collections', 'Verão')
    await A.createProduct({ name: 'a', price: 10, state: 'PUBLISHED', categoryId: cat.id })
    await A.createProduct({ name: 'b', price: 20, state: 'PUBLISHED', categoryId: cat.id, brandId: brand.id, collectionIds: [col.id] })
    await A.createProduct({ name: 'c', price: 30, state: 'DRAFT', brandId: brand.id, collectionIds: [col.id] })
    await A.createProduct({ name: 'd', price: 40.5, state: 'ARCHIVED' })
    const check = async (query: string, expected: string[]) => {
      const page = await A.list(`sort=name&${query}`)
      expect({ query, names: names(page), total: page.total }).toEqual({ query, names: expected, total: expected.length })
    }
    await check('state=PUBLISHED', ['a', 'b'])
    await check('state=ARCHIVED', ['d'])
    await check(`categoryId=${cat.id}`, ['a', 'b'])
    await check(`brandId=${brand.id}`, ['b', 'c'])
    await check(`collectionId=${col.id}`, ['b', 'c'])
    await check('minPrice=20', ['b', 'c', 'd'])
    await check('maxPrice=20', ['a', 'b'])
    await check('minPrice=15&maxPrice=40.5', ['b', 'c', 'd'])
    await check(`state=PUBLISHED&brandId=${brand.id}&maxPrice=25`, ['b'])
    await check(`categoryId=${(await B.createTerm('categories', 'x')).id}`, [])
    // Another kind's id matches nothing for sure: a 400 says which kind it is.
    const swapped = await A.send('GET', `/v1/products?categoryId=${brand.id}`)
    expect([swapped.status, swapped.body.error.details]).toEqual([400, [{ path: 'categoryId', message: `'${brand.id}' is a brand id, not a category id` }]])
    const collection = await A.send('GET', `/v1/products?collectionId=${cat.id}`)
    expect([collection.status, collection.body.error.details[0].message]).toEqual([400, `'${cat.id}' is a category id, not a collection id`])
  })

  test('the product price is its cheapest live variant, for filters, sorts and the body', async () => {
    const { A } = await catalogSetup()
    const p = await A.createProduct({ name: 'multi', price: 50 })
    await A.createProduct({ name: 'single', price: 30 })
    await expectOk(A.send('POST', `/v1/products/${p.id}/variants`, { sku: 'MULTI-L', price: 25, stock: 1, options: { size: 'L' } }), 201)
    const page = await A.list('sort=price')
    expect(page.data.map((x: any) => [x.name, x.price])).toEqual([['multi', 25], ['single', 30]])
    expect(page.data[0].stock).toBe(11)
    expect(names(await A.list('maxPrice=26'))).toEqual(['multi'])
  })

  test('sorts by name, price, -price, createdAt, -createdAt and -rating', async () => {
    const { A, clock, deps } = await catalogSetup()
    const made: Record<string, string> = {}
    for (const [name, price] of [['banana', 3], ['Abacate', 9], ['cereja', 5]] as const) {
      made[name] = (await A.createProduct({ name, price })).id
      clock.advance(1000)
    }
    expect(names(await A.list('sort=name'))).toEqual(['Abacate', 'banana', 'cereja'])
    // Accents sort as their letter, whether the list walks the name index or sorts what a search matched.
    for (const name of ['Água de coco', 'Óculos', 'zebra', 'ameixa']) made[name] = (await A.createProduct({ name, price: 1 })).id
    expect(names(await A.list('sort=name'))).toEqual(['Abacate', 'Água de coco', 'ameixa', 'banana', 'cereja', 'Óculos', 'zebra'])
    expect(names(await A.list('sort=name&search=coco'))).toEqual(['Água de coco'])
    expect(names(await A.list('sort=name&maxPrice=1'))).toEqual(['Água de coco', 'ameixa', 'Óculos', 'zebra'])
    for (const name of ['Água de coco', 'Óculos', 'zebra', 'ameixa']) await expectOk(A.send('DELETE', `/v1/products/${made[name]}`), 204)
    expect(names(await A.list('sort=price'))).toEqual(['banana', 'cereja', 'Abacate'])
    expect(names(await A.list('sort=-price'))).toEqual(['Abacate', 'cereja', 'banana'])
    expect(names(await A.list('sort=createdAt'))).toEqual(['banana', 'Abacate', 'cereja'])
    expect(names(await A.list('sort=-createdAt'))).toEqual(['cereja', 'Abacate', 'banana'])
    // What the reviews feature will write: the summary rows.
    const rate = (id: string, r: { count: number; sum: number; average: number; r5: number; r4: number }) =>
      deps.db.update(productRatings).set(r).where(eq(productRatings.productId, id)).run()
    rate(made.banana!, { count: 2, sum: 9, average: 4.5, r5: 1, r4: 1 })
    rate(made.cereja!, { count: 1, sum: 5, average: 5, r5: 1, r4: 0 })
    const byRating = await A.list('sort=-rating')
    expect(names(byRating)).toEqual(['cereja', 'banana', 'Abacate'])
    expect(byRating.data[1].rating).toEqual({ average: 4.5, count: 2, distribution: { 5: 1, 4: 1, 3: 0, 2: 0, 1: 0 } })
  })

  test('search finds words of name, any variant sku and description, ignoring case and accents, as prefixes', async () => {
    const { A } = await catalogSetup()
    const acai = await A.createProduct({ name: 'Tigela de Açaí', sku: 'BOWL-7', description: 'Com granola' })
    await A.createProduct({ name: 'Camiseta Azul', sku: 'TSH-001-BLU', description: 'Algodão orgânico' })
    await expectOk(A.send('POST', `/v1/products/${acai.id}/variants`, { sku: 'ACAI-XL-900', price: 30, stock: 1, options: { size: 'XL' } }), 201)
    const check = async (search: string, expected: string[]) =>
      expect({ search, found: names(await A.list(`search=${encodeURIComponent(search)}&sort=name`)) }).toEqual({ search, found: expected })
    await check('acai', ['Tigela de Açaí'])
    await check('AÇAÍ', ['Tigela de Açaí'])
    await check('tige', ['Tigela de Açaí'])
    await check('algodao', ['Camiseta Azul'])
    await check('tsh-001', ['Camiseta Azul'])
    await check('acai-xl', ['Tigela de Açaí'])
    await check('camiseta granola', [])
    // One letter is a whole word (the size P, not every word starting with p); a word past 8 letters
    // matches by its first 8 ("camisetas" finds Camiseta): both keep a search off words the index does not list.
    await check('tsh 001 blu', ['Camiseta Azul'])
    await check('t', [])
    await check('camisetas', ['Camiseta Azul'])
    await check('organicos', ['Camiseta Azul'])
    await check('"; DROP TABLE products; --', [])
    await check('   ', ['Camiseta Azul', 'Tigela de Açaí'])
    // A search with no letter or digit finds nothing, rather than leaving the list unfiltered.
    for (const wordless of ['😀', '---', '*', '\u200b', '" ( )']) await check(wordless, [])
    await check('azul 😀', ['Camiseta Azul'])
    // A comma is part of the search (a browser's URLSearchParams sends it as %2C), not a list of two.
    await check('camiseta, azul', ['Camiseta Azul'])
    expect(names(await A.list('search=camiseta,azul'))).toEqual(['Camiseta Azul'])
    const twoSorts = await A.send('GET', '/v1/products?sort=name,price')
    expect(twoSorts.body.error.details).toEqual([{ path: 'sort', message: 'sort must be one of name, price, -price, createdAt, -createdAt, -rating: one order at a time, a leading - for descending' }])
    // An edit is searchable at once; a deleted product is not.
    await expectOk(A.send('PUT', `/v1/products/${acai.id}`, { name: 'Tigela de Cupuaçu' }))
    await check('cupuacu', ['Tigela de Cupuaçu'])
    await check('acai', ['Tigela de Cupuaçu']) // still by its variant sku
    await expectOk(A.send('DELETE', `/v1/products/${acai.id}`), 204)
    await check('cupuacu', [])
  })

  test("search never finds another store's products", async () => {
    const { A, B } = await catalogSetup()
    await B.createProduct({ name: 'Bola de futebol' })
    await A.createProduct({ name: 'Bola de vôlei' })
    const page = await A.list('search=bola')
    expect(names(page)).toEqual(['Bola de vôlei'])
    expect(page.total).toBe(1)
  })

  test('a search with a state finds and counts only products of that state, and follows a change of state at once', async () => {
    const { A } = await catalogSetup()
    await A.createProduct({ name: 'Caneca Azul', state: 'PUBLISHED' })
    await A.createProduct({ name: 'Caneca Branca', state: 'PUBLISHED' })
    const draft = await A.createProduct({ name: 'Caneca Verde', state: 'DRAFT' })
    const found = async (query: string) => {
      const page = await A.list(`search=caneca&sort=name${query}`)
      return { total: page.total, names: names(page) }
    }
    expect(await found('&state=PUBLISHED')).toEqual({ total: 2, names: ['Caneca Azul', 'Caneca Branca'] })
    expect(await found('&state=DRAFT')).toEqual({ total: 1, names: ['Caneca Verde'] })
    await expectOk(A.send('PUT', `/v1/products/${draft.id}`, { state: 'PUBLISHED' }))
    expect(await found('&state=PUBLISHED')).toEqual({ total: 3, names: ['Caneca Azul', 'Caneca Branca', 'Caneca Verde'] })
    expect(await found('&state=DRAFT')).toEqual({ total: 0, names: [] })
    expect(await found('')).toEqual({ total: 3, names: ['Caneca Azul', 'Caneca Branca', 'Caneca Verde'] })
  })

  // Every search word is a prefix: the index keeps prefixes of 2 to 8 letters as lists of their own;
  // a longer one would be read from every word that starts with it, in every store.
  for (const { word, control, others } of [
    { word: 'az', control: 'vi', others: 20_000 },
    { word: 'azulej', control: 'violet', others: 60_000 },
  ]) {
    test(`a store's search for "${word}" costs the same however many products of another store match it (${others})`, async () => {
      const { A, B, deps, w } = await catalogSetup()
      for (const name of ['Caneca Azulejo Violeta', 'Copo Azulejo Violeta', 'Prato Azulejo Violeta']) await B.createProduct({ name })
      writeTransaction(deps.db, (tx) => {
        const insert = tx.$client.query("insert into products (id, store_id, name, state, created_at, updated_at) values (?, ?, 'Caneca Azulejo', 'PUBLISHED', 0, 0)")
        for (let i = 0; i < others; i++) insert.run(`prod_bulk${i}`, w.A.group.storeId)
      })
      expect((await A.list(`search=${word}`)).total).toBe(others)
      expect((await A.list(`search=${control}`)).total).toBe(0)
      const ctx = storeCtx(w.B.group.storeId)
      // Called without the read cache, so every call searches. The same three products are found by a
      // word of the same length that no other store's product has: timed call by call in turn with it,
      // so a busy moment of the machine slows both alike.
      const search = (q: string) => () => expect(listProducts(deps, ctx, ProductListQuery.parse({ search: q }), deps.publicUrl.for()).total).toBe(3)
      // Looking up each of the other store's matches made it some twenty times as slow; reading every word
      // that starts with a prefix the index does not keep, five times.
      await expectTimedInTurnWithinBaseline(`the search for "${word}" beside ${others} matches of another store (baseline: "${control}", which no other store's product has)`, search(control), search(word), { factor: 2, slackMs: 1 })
    })
  }

  // A word of one letter, or longer than the index's longest kept prefix, would be found by reading
  // every distinct word that starts with it, in every store: another store's seeded words included.
  for (const { word, control, seeded } of [
    { word: 'a', control: 'q', seeded: (i: number) => `a${i.toString(36)}` },
    { word: 'azulejaria', control: 'violetinha', seeded: (i: number) => `azulejaria${i.toString(36)}` },
  ]) {
    test(`a store's search for "${word}" costs the same however many distinct words starting with it another store has`, async () => {
      const { B, deps, w } = await catalogSetup()
      for (const name of ['Caneca', 'Copo', 'Prato']) await B.createProduct({ name: `${name} ${word} ${control}` })
      writeTransaction(deps.db, (tx) => {
        const insert = tx.$client.query("insert into products (id, store_id, name, state, created_at, updated_at) values (?, ?, ?, 'PUBLISHED', 0, 0)")
        for (let i = 0; i < 20_000; i++) insert.run(`prod_bulk${i}`, w.A.group.storeId, `Pote ${seeded(i)} ${seeded(i + 20_000)} ${seeded(i + 40_000)}`)
      })
      const ctx = storeCtx(w.B.group.storeId)
      const search = (q: string) => () => expect(listProducts(deps, ctx, ProductListQuery.parse({ search: q }), deps.publicUrl.for()).total).toBe(3)
      // Reading the 60,000 distinct words of the other store made the search for "a" tens of times as slow.
      await expectTimedInTurnWithinBaseline(`the search for "${word}" beside 60,000 distinct words starting with it in another store (baseline: "${control}")`, search(control), search(word), { factor: 2, slackMs: 1 })
    })
  }

  test('a list of a few products of a brand, a category, a collection or a search costs the same however many other products the store has', async () => {
    const { A, B, deps, w } = await catalogSetup()
    // Two stores with the same three products; B also has 20,000 others. Each list is timed in both,
    // one call in A then one in B, so a busy moment of the machine slows both sides alike.
    const storeQueries = async (store: typeof A) => {
      const [brand, category, collection] = [await store.createTerm('brands', 'b'), await store.createTerm('categories', 'c'), await store.createTerm('collections', 'col')]
      for (const name of ['Caneca Azul', 'Copo Azul', 'Prato Azul']) {
        await store.createProduct({ name, brandId: brand.id, categoryId: category.id, collectionIds: [collection.id] })
      }
      return [
        { collectionId: collection.id },
        { brandId: brand.id, sort: 'name' },
        { categoryId: category.id, sort: 'name', state: 'DRAFT' },
        { collectionId: collection.id, sort: '-rating' },
        { search: 'azul', sort: '-rating' },
      ]
    }
    const [few, many] = [await storeQueries(A), await storeQueries(B)]
    writeTransaction(deps.db, (tx) => {
      const insert = tx.$client.query("insert into products (id, store_id, name, state, created_at, updated_at) values (?, ?, 'Mesa', 'DRAFT', 0, 0)")
      for (let i = 0; i < 20_000; i++) insert.run(`prod_bulk${i}`, w.B.group.storeId)
    })
    const [ctxFew, ctxMany] = [storeCtx(w.A.group.storeId), storeCtx(w.B.group.storeId)]
    // Called without the read cache, so every call finds its page.
    const list = (ctx: typeof ctxFew, raw: object) => () => expect(listProducts(deps, ctx, ProductListQuery.parse(raw), deps.publicUrl.for()).total).toBe(3)
    for (const [i, query] of few.entries()) {
      // Walking the whole store's index, reading each product, made them some twenty to a hundred times as slow.
      await expectTimedInTurnWithinBaseline(`the list ${JSON.stringify(query)} beside 20,000 other products (baseline: the same list in a store without them)`, list(ctxFew, query), list(ctxMany, many[i]!), { factor: 2, slackMs: 1 })
    }
  })

  test('pageSize above 100, minPrice above maxPrice, a price with 3 decimals and an unknown sort are each a 400', async () => {
    const { A } = await catalogSetup()
    for (const [query, path] of [
      ['pageSize=101', 'pageSize'],
      ['minPrice=20&maxPrice=10', 'minPrice'],
      ['minPrice=1.001', 'minPrice'],
      ['maxPrice=-1', 'maxPrice'],
      ['sort=popularity', 'sort'],
      ['state=sold', 'state'],
      ['minPrice=abc', 'minPrice'],
    ]) {
      const res = await A.send('GET', `/v1/products?${query}`)
      expect({ query, status: res.status, path: res.body.error?.details?.[0]?.path }).toEqual({ query, status: 400, path })
    }
    const notNumber = await A.send('GET', '/v1/products?minPrice=abc')
    expect(notNumber.body.error.details).toEqual([{ path: 'minPrice', message: 'must be a number, e.g. 19.90' }])
  })

  test('a parameter sent empty is one not sent: an "All" option (categoryId=) lists everything, not nothing', async () => {
    const { A } = await catalogSetup()
    const category = await A.createTerm('categories', 'Canecas')
    await A.createProduct({ name: 'Caneca', categoryId: category.id, price: 10 })
    await A.createProduct({ name: 'Camiseta', price: 50 })
    const all = names(await A.list())
    expect(all).toHaveLength(2)
    for (const query of ['categoryId=', 'brandId=&collectionId=', 'minPrice=&maxPrice=', 'search=', 'sort=', 'state=', 'page=&pageSize=']) {
      const res = await A.list(query)
      expect([query, names(res), res.page, res.pageSize]).toEqual([query, all, 1, 20])
    }
    expect(names(await A.list(`categoryId=${category.id}`))).toEqual(['Caneca'])
  })

  test('a parameter the list does not take (q where it takes search) is a 400 naming those it takes, not a filter silently left out', async () => {
    const { A } = await catalogSetup()
    await A.createProduct({ name: 'Camiseta Azul' })
    await A.createProduct({ name: 'Caneca' })
    const takes = 'not a parameter of this route, which takes page, pageSize, search, categoryId, brandId, collectionId, state, minPrice, maxPrice, sort'
    const q = await A.send('GET', '/v1/products?q=camiseta')
    expect([q.status, q.body.error.message, q.body.error.details]).toEqual([
      400,
      `Invalid query string: q: ${takes}. The expected shape of this route is in /docs.`,
      [{ path: 'q', message: takes }],
    ])
    expect((await expectOk(A.send('GET', '/v1/products?search=camiseta'))).total).toBe(1)
    // Every list does the same: the media library's, with a typo.
    const typo = await A.send('GET', '/v1/media?knd=IMAGE')
    expect([typo.status, typo.body.error.details]).toEqual([400, [{ path: 'knd', message: 'not a parameter of this route, which takes page, pageSize, kind' }]])
  })
})

describe('the two ways to find a filtered page', () => {
  test('walking the sort order and starting from the matches give the same pages', async () => {
    const { A, clock, deps, w } = await catalogSetup()
    const cat = await A.createTerm('categories', 'c')
    const brand = await A.createTerm('brands', 'b')
    const col = await A.createTerm('collections', 'col')
    for (let i = 0; i < 12; i++) {
      await A.createProduct({
        name: `Produto ${i % 3 === 0 ? 'azul' : 'verde'} ${i}`,
        price: 10 + i,
        state: i % 2 ? 'PUBLISHED' : 'DRAFT',
        categoryId: i % 4 === 0 ? cat.id : null,
        brandId: i % 3 === 0 ? brand.id : null,
        collectionIds: i % 5 === 0 ? [col.id] : [],
      })
      clock.advance(1000)
    }
    const ctx = storeCtx(w.A.group.storeId)
    const queries = [
      { search: 'azul' },
      { search: 'produto', state: 'PUBLISHED', sort: 'price' },
      { categoryId: cat.id, sort: 'name' },
      { brandId: brand.id, sort: '-price', pageSize: '2', page: '2' },
      { collectionId: col.id },
      { minPrice: '12', maxPrice: '18', state: 'DRAFT', sort: 'createdAt' },
      { minPrice: '15', search: 'verde', sort: '-rating' },
      { minPrice: '12', sort: 'price', pageSize: '3', page: '2' },
      { maxPrice: '18', sort: '-price', state: 'PUBLISHED' },
      { collectionId: col.id, sort: '-rating' },
      { search: 'produto', collectionId: col.id, sort: 'name' },
    ]
    for (const raw of queries) {
      const query = ProductListQuery.parse(raw)
      const walked = listProducts(deps, ctx, query, deps.publicUrl.for(), 0)
      const fromMatches = listProducts(deps, ctx, query, deps.publicUrl.for(), Infinity)
      expect(walked.data.map((p) => p.id)).toEqual(fromMatches.data.map((p) => p.id))
      expect(walked.total).toBe(fromMatches.total)
      expect(walked.data.length).toBeGreaterThan(0)
    }
  })

  test("a shop front's filtered list counts its matches and walks its sort order inside indexes, reading no product but those it shows", async () => {
    const SORT_INDEX: Record<string, string> = { name: 'products_store_name', price: 'products_store_price', '-price': 'products_store_price', createdAt: 'products_store_created', '-createdAt': 'products_store_created' }
    const { A, deps, w } = await catalogSetup()
    const cat = await A.createTerm('categories', 'c')
    const brand = await A.createTerm('brands', 'b')
    for (let i = 0; i < 6; i++) {
      await A.createProduct({ name: `Produto ${i}`, price: 10 + i, state: i % 2 ? 'PUBLISHED' : 'DRAFT', categoryId: i % 3 ? cat.id : null, brandId: i % 2 ? brand.id : null })
    }
    const ctx = storeCtx(w.A.group.storeId)
    const plan = (sql: string) => (deps.sqlite.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join('; ')
    // The columns a statement reads from the products table itself (SQLite's program: a Column on the table's
    // cursor), where its index did not hold them; the plan alone does not tell (a partial index's own
    // condition, deleted_at is null, needs no read, but the plan never calls that index covering).
    const productsPage = (deps.sqlite.query("SELECT rootpage FROM sqlite_master WHERE name = 'products'").get() as { rootpage: number }).rootpage
    const tableReads = (sql: string) => {
      const program = deps.sqlite.query(`EXPLAIN ${sql}`).all() as { opcode: string; p1: number; p2: number }[]
      const onTable = new Set(program.filter((op) => op.opcode === 'OpenRead' && op.p2 === productsPage).map((op) => op.p1))
      return program.filter((op) => op.opcode === 'Column' && onTable.has(op.p1)).map((op) => op.p2)
    }
    // A shop front always lists one state (PUBLISHED): with an index that lacked it, or the price, each
    // entry walked or counted read its product, and a deep page or the count of a price range of a
    // 100,000-product store took hundreds of ms. Every sort but -rating: that order is product_ratings',
    // whose walk looks up each product it passes.
    const filters = [{ minPrice: '11' }, { maxPrice: '14' }, { categoryId: cat.id }, { brandId: brand.id }, { categoryId: cat.id, minPrice: '11' }, { brandId: brand.id, maxPrice: '14' }]
    for (const sort of ['name', 'price', '-price', 'createdAt', '-createdAt']) {
      for (const filter of filters) {
        const query = ProductListQuery.parse({ ...filter, sort, state: 'PUBLISHED' })
        // Walking the order (any total above 0 is "many"): the count and the page.
        const { result, statements } = await statementsOf(async () => listProducts(deps, ctx, query, deps.publicUrl.for(), 0))
        expect(result.data.length).toBeGreaterThan(0)
        expect(result.data.every((p) => p.state === 'PUBLISHED')).toBe(true)
        // Both but the read of the rows shown (by seq).
        const found = statements.filter((sql) => /from "products"/.test(sql) && !/"products"."seq" in/.test(sql))
        expect({ sort, filter, statements: found.length }).toEqual({ sort, filter, statements: 2 })
        for (const sql of found) {
          expect({ sort, filter, plan: plan(sql), tableReads: tableReads(sql) }).toEqual({ sort, filter, plan: expect.stringMatching(/^SEARCH products USING INDEX products_store_\w+ \(store_id=\?/), tableReads: [] })
        }
        // The page walks its own order's index, which gives the rows in order (no sort of its own): an
        // index whose expression differs from the query's, as a hand-written migration's could, is not used.
        const page = plan(found.find((sql) => !/count\(/.test(sql))!)
        expect({ sort, filter, page }).toEqual({ sort, filter, page: expect.stringMatching(new RegExp(`^SEARCH products USING INDEX ${SORT_INDEX[sort]} \\(store_id=\\?[^;]*\\)$`)) })
      }
    }
  })
})
