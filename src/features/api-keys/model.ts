import { z } from 'zod'

export const CreateKeyBody = z.object({ name: z.string().trim().min(1, 'name is required').max(80) }).strict()

export const KeyListItem = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('sk_ plus the public part; the rest of the key is never shown again'),
    createdAt: z.string(),
    createdBy: z.string().describe('RM of the student who created it'),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' })

export const KeyList = z.object({ data: z.array(KeyListItem) })

export const CreatedKey = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  apiKey: z.string().describe('The whole key. Shown only in this response: store it now.'),
  createdAt: z.string(),
})

export const KeyIdParams = z.object({ id: z.string() })
