import { z } from 'zod'
import { nameText } from '../../kernel/control-characters'

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))
/** How many decimal places a currency's amounts have (JPY 0, BRL 2, KWD 3). */
const decimalsOf = (code: string) => new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits

const canonicalLocale = (tag: string) => {
  try {
    return Intl.getCanonicalLocales(tag)[0]
  } catch {
    return undefined
  }
}

export const Settings = z
  .object({
    storeName: z.string(),
    primaryColor: z.string(),
    supportEmail: z.string().nullable(),
    locale: z.string(),
    currency: z.string(),
  })
  .meta({ id: 'StoreSettings' })
export type Settings = z.infer<typeof Settings>

/** Any subset of the settings; each field checked for real. */
export const SettingsUpdate = z
  .object({
    storeName: nameText('storeName', 80),
    primaryColor: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, 'primaryColor must look like #rrggbb, e.g. #1f6feb')
      .transform((c) => c.toLowerCase()),
    supportEmail: z.email('supportEmail must be an e-mail address, e.g. help@shop.example, or null to clear it').max(254).nullable(),
    locale: z
      .string()
      .max(35, 'locale is a language tag of at most 35 characters, e.g. pt-BR or en-US')
      .refine((t) => canonicalLocale(t) !== undefined, 'locale must be a BCP 47 language tag, e.g. pt-BR or en-US')
      .transform((t) => canonicalLocale(t)!)
      // The tag's shape, for the document and tools that generate requests; the check above is the rule.
      .meta({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$' }),
    currency: z
      .string()
      .transform((c) => c.toUpperCase())
      .refine((c) => CURRENCIES.has(c), 'currency must be an ISO 4217 code, e.g. BRL, USD or EUR')
      // Every amount here has cents (2 decimals): a store in JPY would show 167.9 yen, in KWD lose a decimal.
      .refine((c) => !CURRENCIES.has(c) || decimalsOf(c) === 2, {
        error: (issue) => `currency ${String(issue.input)} has ${decimalsOf(String(issue.input))} decimal places, and every price here has 2 (cents): choose a currency with cents, e.g. BRL, USD or EUR`,
      })
      // Any case is taken (stored upper case): three letters, for the document; the list above is the rule.
      .meta({ pattern: '^[A-Za-z]{3}$' }),
  })
  .partial()
  .strict()
export type SettingsUpdate = z.infer<typeof SettingsUpdate>
