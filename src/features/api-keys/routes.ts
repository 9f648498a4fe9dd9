import { Elysia } from 'elysia'
import { asStudent } from '../../kernel/auth/kinds'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { CreatedKey, CreateKeyBody, KeyIdParams, KeyList } from './model'
import { createKey, listKeys, MAX_ACTIVE_KEYS, revokeKey } from './service'
import { noContent } from '../../kernel/http/no-content'
import { pageOfAll, ShortListQuery } from '../../kernel/pagination'

const tags = ['Store panel']

export const apiKeyRoutes = (deps: Deps) =>
  new Elysia({ prefix: '/store/api-keys' })
    .use(authMacro)
    .get('/', ({ ctx, query }) => pageOfAll(listKeys(deps, asStudent(ctx)), query), {
      auth: 'student',
      query: ShortListQuery,
      response: { 200: KeyList },
      detail: { tags, summary: "The store's active API keys", description: `Only the prefix of each key is shown, oldest first. A store has at most ${MAX_ACTIVE_KEYS}, and a page is 100 unless \`pageSize\` says otherwise, so without \`page\` and \`pageSize\` the list comes whole.` },
    })
    .post(
      '/',
      ({ ctx, body, set }) => {
        set.status = 201
        return createKey(deps, asStudent(ctx), body.name, body.kind)
      },
      {
        auth: 'student',
        body: CreateKeyBody,
        response: { 201: CreatedKey, 400: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Create an API key',
          description:
            'Two kinds (`kind`, default `secret`). A secret key (sk_...) opens every store route and belongs on your app\'s server, never in a browser page. ' +
            'A publishable key (pk_...) may sit in a browser page: it opens only the shop-front routes, and every other route that a secret key opens answers it 403 SECRET_KEY_REQUIRED. ' +
            'The response carries the whole key (`apiKey`) this once; afterwards only its prefix is shown. Send it as X-API-Key. ' +
            `A store has at most ${MAX_ACTIVE_KEYS} active keys: one more is 409 LIMIT_REACHED (revoke one you no longer use first).`,
        },
      },
    )
    .delete(
      '/:id',
      ({ ctx, params }) => {
        revokeKey(deps, asStudent(ctx), params.id)
        return noContent()
      },
      {
        auth: 'student',
        params: KeyIdParams,
        response: { 404: ErrorEnvelope },
        detail: { tags, summary: 'Revoke an API key', description: 'Takes effect on the very next request. 204 with no body.' },
      },
    )
