/** The admin routes' answers, as the API reference (/docs) describes them. */
export interface Member {
  rm: string
  name: string
}

export interface Group {
  id: string
  name: string
  storeId: string
  members: Member[]
  createdAt: string
}

interface Counts {
  calls: number
  errors: number
  lastCallAt: string | null
}

/** GET /v1/admin/activity */
export interface ActivityReport {
  from: string
  to: string
  groups: (Counts & { groupId: string; name: string; unattributed: number; students: (Counts & Member)[] })[]
}

/** GET /v1/admin/activity/series: every array has one number per entry of `times`. */
export interface ActivitySeries {
  from: string
  to: string
  bucket: 'hour' | 'day'
  times: string[]
  groups: {
    groupId: string
    name: string
    calls: number[]
    errors: number[]
    unattributed: number[]
    students: (Member & { calls: number[]; errors: number[] })[]
  }[]
}
