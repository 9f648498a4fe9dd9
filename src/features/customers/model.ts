import { z } from 'zod'
import { nameText } from '../../kernel/control-characters'

/** The form alone, to tell an address sent with spaces around it from no address. */
const EMAIL_FORM = z.email()

const Email = z
  .email({
    // A form's value copied with a space around it: said so, rather than called no e-mail address.
    error: (issue) =>
      typeof issue.input === 'string' && issue.input.trim() !== issue.input && EMAIL_FORM.safeParse(issue.input.trim()).success
        ? 'email has spaces around it: trim the value before sending it (ana@example.com, not " ana@example.com ")'
        : 'email must be an e-mail address, e.g. ana@example.com',
  })
  .max(254)
  .transform((e) => e.toLowerCase())

export const RegisterBody = z
  .object({
    email: Email,
    password: z.string().min(8, 'password needs at least 8 characters').max(256),
    name: nameText('name', 120),
  })
  .strict()

export const CustomerLoginBody = z
  .object({ email: Email, password: z.string().min(1, 'password is required').max(256) })
  .strict()

export const Customer = z.object({ id: z.string(), email: z.string(), name: z.string() }).meta({ id: 'Customer' })
export type Customer = z.infer<typeof Customer>

export const CustomerSession = z.object({
  token: z.string().describe("Customer token (ctk_...): send it as Authorization: Bearer <token>, together with the store's X-API-Key. Lives 30 days."),
  customer: Customer,
  expiresAt: z.string(),
})
