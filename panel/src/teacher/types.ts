// The admin routes' answers: the server's own response schemas, imported as types. A field renamed or
// retyped on the server fails the panel's type-check (`tsc -p panel`), and a type-only import leaves no
// server code in the bundle.

import type { z } from 'zod'
import type { ResetResult, SeedResult } from '../../../src/features/classroom/model'
import type { ImportSummary as ImportSummarySchema } from '../../../src/features/groups/model'

export type { Member } from '../../../src/features/members/model'
export type { Group } from '../../../src/features/groups/model'
export type { ActivityReport, ActivitySeries, ClassBoard } from '../../../src/features/activity/model'

export type ImportSummary = z.infer<typeof ImportSummarySchema>
export type SeedAnswer = z.infer<typeof SeedResult>
export type ResetAnswer = z.infer<typeof ResetResult>
