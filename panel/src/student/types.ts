// The API bodies the student screens read: the server's own response schemas, imported as types. A
// field renamed or retyped on the server fails the panel's type-check (`tsc -p panel`), and a type-only
// import leaves no server code in the bundle.

import type { z } from 'zod'
import type { CreatedKey as CreatedKeySchema, KeyList as KeyListSchema, KeyListItem } from '../../../src/features/api-keys/model'
import type { Media as MediaSchema, MediaUsage as MediaUsageSchema } from '../../../src/features/media/model'
import type { MemberList as MemberListSchema } from '../../../src/features/members/model'
import type { OrderStatus as OrderStatusSchema } from '../../../src/features/orders/model'
import type { ChangePasswordResponse, LoginResponse } from '../../../src/features/store-auth/model'
import type { Delivery as DeliverySchema, EventTypeList as EventTypeListSchema, ListenerList as ListenerListSchema, RegisteredWebhook as RegisteredSchema, WebhookEndpoint } from '../../../src/features/webhooks/model'

export type { Product, ProductSummary } from '../../../src/features/catalog/model'
export type { Member } from '../../../src/features/members/model'
export type { Order } from '../../../src/features/orders/model'
export type { Review } from '../../../src/features/reviews/model'
import type { StoreReviewPage } from '../../../src/features/reviews/model'
export type StoreReview = z.infer<typeof StoreReviewPage>['data'][number]
export type { Settings } from '../../../src/features/store-settings/model'
export type { Overview } from '../../../src/features/overview/model'

export type LoginAnswer = z.infer<typeof LoginResponse>
export type PasswordChanged = z.infer<typeof ChangePasswordResponse>
export type ApiKey = z.infer<typeof KeyListItem>
export type KeyList = z.infer<typeof KeyListSchema>
export type CreatedKey = z.infer<typeof CreatedKeySchema>
export type MemberList = z.infer<typeof MemberListSchema>
export type OrderStatus = z.infer<typeof OrderStatusSchema>
export type Webhook = z.infer<typeof WebhookEndpoint>
export type RegisteredWebhook = z.infer<typeof RegisteredSchema>
export type EventTypeList = z.infer<typeof EventTypeListSchema>
export type Delivery = z.infer<typeof DeliverySchema>
export type ListenerList = z.infer<typeof ListenerListSchema>
export type Media = z.infer<typeof MediaSchema>
export type MediaUsage = z.infer<typeof MediaUsageSchema>
