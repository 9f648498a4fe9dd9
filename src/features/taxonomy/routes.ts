import { Elysia } from 'elysia'
import { authMacro } from '../../kernel/auth/macro'
import type { Deps } from '../../kernel/deps'
import { ErrorEnvelope } from '../../kernel/errors'
import { Page, PageQuery } from '../../kernel/pagination'
import { TAXONOMIES, TERM_SCHEMAS, TermIdParams, TermInput, TermUpdate, type TaxonomyKind } from './model'
import { createTerm, deleteTerm, getTerm, listTerms, updateTerm } from './service'
import { noContent } from '../../kernel/http/no-content'
import { created } from '../../kernel/http/created'

const tags = ['Catalog']

/** The same five routes for categories, brands and collections. */
export const taxonomyRoutes = (deps: Deps, kind: TaxonomyKind) => {
  const { one } = TAXONOMIES[kind]
  const Term = TERM_SCHEMAS[kind]
  return new Elysia({ prefix: `/${kind}` })
    .use(authMacro)
    .get('/', ({ ctx, query }) => listTerms(deps, ctx, kind, query), {
      auth: 'shop',
      query: PageQuery,
      response: { 200: Page(Term), 400: ErrorEnvelope },
      detail: { tags, summary: `List ${kind}`, description: `Sorted by name. Products point at a ${one} by its id.` },
    })
    .post(
      '/',
      ({ ctx, body, set }) => created(set, createTerm(deps, ctx, kind, body), (id) => `/v1/${kind}/${id}`),
      {
        auth: 'secret',
        body: TermInput,
        response: { 201: Term, 400: ErrorEnvelope, 409: ErrorEnvelope },
        detail: { tags, summary: `Create a ${one}`, description: `Names are unique in the store, ignoring case (409 CONFLICT).` },
      },
    )
    .get('/:id', ({ ctx, params }) => getTerm(deps, ctx, kind, params.id), {
      auth: 'shop',
      params: TermIdParams,
      response: { 200: Term, 404: ErrorEnvelope },
      detail: { tags, summary: `One ${one}` },
    })
    .put('/:id', ({ ctx, params, body }) => updateTerm(deps, ctx, kind, params.id, body), {
      auth: 'secret',
      params: TermIdParams,
      body: TermUpdate,
      response: { 200: Term, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
      detail: { tags, summary: `Change a ${one}`, description: 'Send any subset of name and description (null clears the description).' },
    })
    .delete(
      '/:id',
      ({ ctx, params }) => {
        deleteTerm(deps, ctx, kind, params.id)
        return noContent()
      },
      {
        auth: 'secret',
        params: TermIdParams,
        response: { 404: ErrorEnvelope },
        detail: {
          tags,
          summary: `Delete a ${one}`,
          description:
            kind === 'collections'
              ? 'Its products stay; they just leave the collection. 204 with no body.'
              : `Its products stay, with ${kind === 'categories' ? 'categoryId' : 'brandId'} set to null. 204 with no body.`,
        },
      },
    )
}
