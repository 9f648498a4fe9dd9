/** The API bodies the student screens read (see /docs for every field). */
export interface Settings {
  storeName: string
  primaryColor: string
  supportEmail: string | null
  locale: string
  currency: string
}

export interface ApiKey {
  id: string
  name: string
  kind: 'secret' | 'publishable'
  prefix: string
  createdAt: string
  createdBy: string | null
  lastUsedAt: string | null
}

export interface Member {
  rm: string
  name: string
}

export interface Variant {
  id: string
  sku: string
  price: number
  stock: number
  reserved: number
  available: number
  options: Record<string, string>
}

export interface Product {
  id: string
  type: string
  name: string
  sku: string
  description: string | null
  price: number
  stock: number
  state: 'DRAFT' | 'PUBLISHED' | 'ARCHIVED'
  variants: Variant[]
  /** URL of the cover image */
  image: string | null
  rating: { average: number; count: number }
  updatedAt: string
}

export type OrderStatus = 'PENDING' | 'PAID' | 'SHIPPED' | 'DELIVERED' | 'CANCELLED' | 'REFUNDED'

export interface Order {
  id: string
  number: number
  status: OrderStatus
  items: { variantId: string; name: string; sku: string; quantity: number; unitPrice: number; lineTotal: number }[]
  total: number
  currency: string
  customer: { id: string; name: string; email: string }
  shipment: { status: string; trackingCode: string | null } | null
  createdAt: string
  allowedTransitions: OrderStatus[]
  refundable: boolean
}

export interface Review {
  id: string
  productId: string
  customer: { id: string; name: string }
  rating: number
  title: string
  comment: string
  media: { id: string; url: string }[]
  hidden: boolean
  createdAt: string
}

export interface Webhook {
  id: string
  url: string
  events: string[]
  description: string | null
  createdAt: string
}

export interface Delivery {
  id: string
  webhookId: string
  eventType: string
  attempt: number
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED'
  redelivery: boolean
  sentAt: string | null
  scheduledAt: string
  responseStatus: number | null
  responseBody: string | null
  error: string | null
  durationMs: number | null
  signedPayload: string | null
  requestHeaders: Record<string, string> | null
  nextRetryAt: string | null
}

export interface Media {
  id: string
  kind: 'IMAGE' | 'VIDEO'
  url: string
  mimeType: string
  sizeBytes: number
  filename: string
  width?: number
  height?: number
  createdAt: string
}

export interface MediaUsage {
  usedBytes: number
  quotaBytes: number
  files: number
}
