// The request inspector's answers: the server's own response schemas, imported as types (see student/types.ts).
import type { z } from 'zod'
import type { RequestDetail as RequestDetailSchema, RequestEntry as RequestEntrySchema } from '../../src/features/inspector/model'

export type RequestEntry = z.infer<typeof RequestEntrySchema>
export type RequestDetail = z.infer<typeof RequestDetailSchema>
