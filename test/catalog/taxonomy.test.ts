import { describe, expect, test } from 'bun:test'
import { catalogSetup, expectSameNotFound } from '../helpers/catalog'
import { expectOk } from '../helpers/world'

const KINDS = [
  { kind: 'categories', one: 'category', prefix: 'cat_', field: 'categoryId' },
  { kind: 'brands', one: 'brand', prefix: 'brd_', field: 'brandId' },
  { kind: 'collections', one: 'collection', prefix: 'col_', field: 'collectionIds' },
] as const

for (const { kind, one, prefix, field } of KINDS) {
  describe(`/v1/${kind}`, () => {
    test(`creating a ${one} returns it with a ${prefix} id, and GET /:id shows the same`, async () => {
      const { A } = await catalogSetup()
      const created = await expectOk(A.send('POST', `/v1/${kind}`, { name: '  Verão ', description: 'Peças leves' }), 201)
      expect(created).toEqual({
        id: expect.stringMatching(new RegExp(`^${prefix}[0-9a-z]{20}$`)),
        name: 'Verão',
        description: 'Peças leves',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-01T00:00:00.000Z',
      })
      expect(await expectOk(A.send('GET', `/v1/${kind}/${created.id}`))).toEqual(created)
    })

    test(`the ${one} list is sorted by name, paginated, and never shows another store's`, async () => {
      const { A, B } = await catalogSetup()
      for (const name of ['b', 'C', 'a']) await A.createTerm(kind, name)
      await B.createTerm(kind, 'from B')
      const first = await expectOk(A.send('GET', `/v1/${kind}?pageSize=2`))
      expect(first.data.map((t: any) => t.name)).toEqual(['a', 'b'])
      expect(first).toMatchObject({ page: 1, pageSize: 2, total: 3 })
      const second = await expectOk(A.send('GET', `/v1/${kind}?pageSize=2&page=2`))
      expect(second.data.map((t: any) => t.name)).toEqual(['C'])
      const ofB = await expectOk(B.send('GET', `/v1/${kind}`))
      expect(ofB.data.map((t: any) => t.name)).toEqual(['from B'])
      // A name with an accent sorts by its letter: Óculos among the o's, not after z.
      for (const name of ['Óculos', 'zíper', 'Écharpes', 'calçados']) await B.createTerm(kind, name)
      const accented = await expectOk(B.send('GET', `/v1/${kind}`))
      expect(accented.data.map((t: any) => t.name)).toEqual(['calçados', 'Écharpes', 'from B', 'Óculos', 'zíper'])
    })

    test(`a ${one} name already used in the store, in any case, is 409 CONFLICT; another store may use it`, async () => {
      const { A, B } = await catalogSetup()
      await A.createTerm(kind, 'Promoções')
      const again = await A.send('POST', `/v1/${kind}`, { name: 'promoções' })
      expect(again.status).toBe(409)
      expect(again.body.error.code).toBe('CONFLICT')
      expect(again.body.error.message).toBe(
        `This store already has a ${one} named 'Promoções' (names are compared ignoring case and accents). Choose another name, or use the existing one.`,
      )
      // Accents and the case of accented letters too: SQLite's lower() alone took these for new names; and
      // the same letters written with combining accents (NFD, as some systems type them).
      for (const name of ['PROMOÇÕES', 'Promocoes', 'Promoções'.normalize('NFD')]) expect([name, (await A.send('POST', `/v1/${kind}`, { name })).status]).toEqual([name, 409])
      await expectOk(B.send('POST', `/v1/${kind}`, { name: 'Promoções' }), 201)
    })

    test(`PUT changes a ${one}'s name and description; a name in use is 409; an unknown field is 400`, async () => {
      const { A, clock } = await catalogSetup()
      const t = await A.createTerm(kind, 'Old')
      await A.createTerm(kind, 'Taken')
      clock.advance(1000)
      const changed = await expectOk(A.send('PUT', `/v1/${kind}/${t.id}`, { name: 'New', description: 'now described' }))
      expect(changed).toMatchObject({ id: t.id, name: 'New', description: 'now described', updatedAt: '2026-01-01T00:00:01.000Z' })
      const cleared = await expectOk(A.send('PUT', `/v1/${kind}/${t.id}`, { description: null }))
      expect(cleared.description).toBeNull()
      const clash = await A.send('PUT', `/v1/${kind}/${t.id}`, { name: 'taken' })
      expect(clash.status).toBe(409)
      // Its own name in another case is no clash.
      expect((await expectOk(A.send('PUT', `/v1/${kind}/${t.id}`, { name: 'NEW' }))).name).toBe('NEW')
      await expectOk(A.send('PUT', `/v1/${kind}/${t.id}`, { name: 'New' }))
      const unknown = await A.send('PUT', `/v1/${kind}/${t.id}`, { slug: 'x' })
      expect(unknown.status).toBe(400)
      expect(unknown.body.error.details).toEqual([{ path: 'slug', message: 'unknown or read-only field; remove it' }])
      expect((await A.send('GET', `/v1/${kind}/${t.id}`)).body.name).toBe('New')
    })

    test(`a blank ${one} name, or one with a control character, is a 400 that names the field`, async () => {
      const { A } = await catalogSetup()
      const res = await A.send('POST', `/v1/${kind}`, { name: '   ' })
      expect(res.status).toBe(400)
      expect(res.body.error.details).toEqual([{ path: 'name', message: 'name is required' }])
      // Nor one with a terminal's escape, or a description with one (its line breaks are kept).
      const escaped = await A.send('POST', `/v1/${kind}`, { name: 'Col\u001bx' })
      expect([escaped.status, escaped.body.error.details]).toEqual([400, [{ path: 'name', message: 'name holds a control character (U+001B at position 4); remove control characters, newlines and tabs included' }]])
      const described = await A.send('POST', `/v1/${kind}`, { name: 'Ok', description: 'linha 1\nlinha\u0001' })
      expect([described.status, described.body.error.details[0].path]).toEqual([400, 'description'])
      expect((await expectOk(A.send('POST', `/v1/${kind}`, { name: 'Ok', description: 'linha 1\nlinha 2' }), 201)).description).toBe('linha 1\nlinha 2')
    })

    test(`another store's ${one} id is a 404 like an unknown id on GET, PUT and DELETE, and stays unchanged`, async () => {
      const { A, B } = await catalogSetup()
      const theirs = await A.createTerm(kind, 'Mine')
      const unknown = `${prefix}doesnotexist00000000`
      for (const [method, body] of [['GET'], ['PUT', { name: 'Stolen' }], ['DELETE']] as const) {
        const cross = await B.send(method, `/v1/${kind}/${theirs.id}`, body)
        const none = await B.send(method, `/v1/${kind}/${unknown}`, body)
        expectSameNotFound(cross, none, theirs.id, unknown)
      }
      expect(await A.send('GET', `/v1/${kind}/${theirs.id}`).then((r) => r.body.name)).toBe('Mine')
    })

    test(`an id of another kind in /v1/${kind} says what it is`, async () => {
      const { A } = await catalogSetup()
      const product = await A.createProduct()
      const res = await A.send('GET', `/v1/${kind}/${product.id}`)
      expect(res.status).toBe(404)
      expect(res.body.error.message).toContain(`'${product.id}' is a product id, not a ${one} id`)
    })

    test(`DELETE of a ${one} is 204 with no body; its products stay, without it`, async () => {
      const { A } = await catalogSetup()
      const t = await A.createTerm(kind, 'Gone soon')
      const product = await A.createProduct(field === 'collectionIds' ? { collectionIds: [t.id] } : { [field]: t.id })
      const res = await A.send('DELETE', `/v1/${kind}/${t.id}`)
      expect(res.status).toBe(204)
      expect(res.text).toBe('')
      expect((await A.send('GET', `/v1/${kind}/${t.id}`)).status).toBe(404)
      const after = await A.product(product.id)
      expect(after[field]).toEqual(field === 'collectionIds' ? [] : null)
    })
  })
}
