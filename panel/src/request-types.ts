// The request inspector's answers (GET /v1/store/requests and /v1/admin/groups/:id/requests).
export interface RequestEntry {
  id: string
  time: string
  method: string
  path: string
  query: string
  status: number
  durationMs: number
  credential: 'secret' | 'publishable' | 'student' | 'customer'
  rm: string | null
  error: { code: string; message: string } | null
}
export interface RequestDetail extends RequestEntry {
  requestHeaders: Record<string, string>
  requestBody: string | null
  responseBody: string | null
  requestBodyTruncated: boolean
  responseBodyTruncated: boolean
}
