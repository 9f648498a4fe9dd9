import { API_KEY_KINDS } from '../../kernel/auth/kinds'
import { z } from 'zod'
import { nameText } from '../../kernel/control-characters'
import { Page } from '../../kernel/pagination'

const KeyKind = z
  .enum(API_KEY_KINDS)
  .describe(
    'secret (sk_...): opens every store route; keep it on your server. publishable (pk_...): opens only the shop-front routes (catalog reads, customer register/login, and with a customer token the cart, checkout, payment and the customer\'s own orders and reviews); safe in a browser page.',
  )

export const CreateKeyBody = z
  .object({
    name: nameText('name', 80),
    kind: KeyKind.default('secret'),
  })
  .strict()

export const KeyListItem = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: KeyKind,
    prefix: z.string().describe('sk_ or pk_ plus the public part; the rest of the key is never shown again'),
    createdAt: z.string(),
    createdBy: z.string().describe('RM of the student who created it'),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' })

export const KeyList = Page(KeyListItem)

export const CreatedKey = z.object({
  id: z.string(),
  name: z.string(),
  kind: KeyKind,
  prefix: z.string(),
  apiKey: z.string().describe('The whole key. Shown only in this response: store it now.'),
  createdAt: z.string(),
})

export const KeyIdParams = z.object({ id: z.string() })
