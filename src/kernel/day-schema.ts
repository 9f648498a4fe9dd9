import { z } from 'zod'

/** The IANA name of the time zone whose calendar days an answer counts (Clock.timeZone). */
export const timeZoneField = () =>
  z.string().describe("the IANA time zone of the server's days, e.g. America/Sao_Paulo: the server machine's own, which its TZ variable sets")

/** The calendar day an answer's "today" figures cover: its first and last instants, and whose day it is. */
export const todaySchema = (figures: string) =>
  z
    .object({
      from: z.string().describe('the day\u2019s start, as an ISO time in UTC (midnight in `timeZone`)'),
      to: z.string().describe('the next day\u2019s start, exclusive'),
      timeZone: timeZoneField(),
    })
    .describe(`the current calendar day in the server's time zone, which ${figures} cover`)
