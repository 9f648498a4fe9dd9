import { apiKey, expectOk } from './world'
import { registerBuyer, shopSetup } from './orders'

let buyers = 0

/** Store A with a PUBLISHED product, and helpers for buyers who paid for it and for the store's moderation. */
export async function reviewSetup() {
  const s = await shopSetup({ stock: 100 })
  const key = s.w.A.key.apiKey
  const store = (method: string, path: string, body?: unknown) => s.call(method, path, { headers: apiKey(key), body })
  /** A new customer of A who bought (and paid for) the given variants. */
  async function paidBuyer(variantIds: string[] = [s.variantId], name = `Cliente ${buyers + 1}`) {
    const b = await registerBuyer(s.call, key, `buyer${++buyers}@example.com`, name)
    for (const v of variantIds) await expectOk(b.add(v))
    const order = await expectOk(b.checkout(), 201)
    await expectOk(b.pay(order.id))
    const review = (productId: string, body: unknown) => b.send('POST', `/v1/products/${productId}/reviews`, body)
    return { ...b, order, review }
  }
  const publicList = (productId: string, query = '') => expectOk(store('GET', `/v1/products/${productId}/reviews${query}`))
  return { ...s, key, store, paidBuyer, publicList }
}
