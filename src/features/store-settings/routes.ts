import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { Settings, SettingsUpdate } from './model'
import { getSettings, updateSettings } from './service'

const tags = ['Store panel']

export const storeSettingsRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/store/settings' })
    .use(authMacro)
    .get('/', ({ ctx }) => getSettings(deps, ctx), {
      auth: 'student',
      response: { 200: Settings },
      detail: {
        tags,
        summary: 'Store settings',
        description: 'Defaults: storeName = the group name, primaryColor #1f6feb, supportEmail null, locale pt-BR, currency BRL.',
      },
    })
    .put('/', ({ ctx, body }) => updateSettings(deps, ctx, body), {
      auth: 'student',
      body: SettingsUpdate,
      response: { 200: Settings, 400: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Change store settings',
        description: 'Send any subset of the fields. primaryColor is #rrggbb, supportEmail an e-mail (or null to clear), locale a BCP 47 tag (stored in canonical form, e.g. pt-br becomes pt-BR), currency an ISO 4217 code of a currency with cents (2 decimals, as every price here has: not JPY or KWD).',
      },
    })
