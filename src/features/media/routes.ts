import { Elysia } from 'elysia'
import { authMacro, UPLOAD_EXTENSION } from '../../kernel/auth/macro'
import { ErrorEnvelope } from '../../kernel/errors'
import { Page } from '../../kernel/pagination'
import { FILE_RESPONSES, serveFile } from './files'
import { DOWNLOADS_RULE } from './downloads'
import { UPLOADS_RULE } from './in-flight'
import { DeleteMediaQuery, FileHeaders, FileParams, LIBRARY_FILE, Media, MediaIdParams, MediaListQuery, MediaUsage, uploadRequestBody } from './model'
import { deleteMedia, listMedia, mediaUsage, uploadMedia } from './service'
import type { MediaDeps } from './users'
import { noContent } from '../../kernel/http/no-content'

const tags = ['Media']

export const mediaRoutes = (deps: MediaDeps) =>
  new Elysia()
    .use(authMacro)
    .post(
      '/uploads',
      async ({ ctx, request, set }) => {
        const { media } = await uploadMedia(deps, ctx, request)
        set.status = 201
        return media
      },
      {
        auth: 'secret',
        response: { 201: Media, 400: ErrorEnvelope, 409: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope, 507: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Upload a file to the store library',
          description: `multipart/form-data with the file in the field \`file\` (curl: \`-F file=@photo.jpg\`). The format is recognised from the bytes, never from the name or declared type: JPEG, PNG, WebP, GIF, AVIF images up to 10 MiB, MP4 and WebM videos up to 100 MiB. SVG is refused (it can carry scripts), and so is an image of at most 256 KiB whose width and height are not in it (a file cut short: 415). The store's quota (500 MiB by default) is checked too, while the file arrives: 413 FILE_TOO_LARGE or QUOTA_EXCEEDED. ${UPLOADS_RULE} The file only enters the library; link it to a product with POST /v1/products/:id/images.`,
          requestBody: uploadRequestBody(LIBRARY_FILE),
          [UPLOAD_EXTENSION]: true,
        } as never,
      },
    )
    .get('/media', ({ ctx, query, request }) => listMedia(deps, ctx, query, deps.publicUrl.for(request)), {
      auth: 'secret',
      query: MediaListQuery,
      response: { 200: Page(Media) },
      detail: { tags, summary: 'The store library', description: 'Newest first; filter with kind=IMAGE or kind=VIDEO.' },
    })
    .get('/media/usage', ({ ctx }) => mediaUsage(deps, ctx), {
      auth: 'secret',
      response: { 200: MediaUsage },
      detail: { tags, summary: 'Space used by the library, against the quota' },
    })
    .delete(
      '/media/:id',
      async ({ ctx, params, query }) => {
        await deleteMedia(deps, ctx, params.id, query.force)
        return noContent()
      },
      {
        auth: 'secret',
        params: MediaIdParams,
        query: DeleteMediaQuery,
        response: { 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Delete a library file for good',
          description: 'A file used by a product image or a review is 409 MEDIA_IN_USE (details list the uses), unless `force=true`, which unlinks it everywhere first. 204 with no body.',
        },
      },
    )
    .get('/files/:storeId/:name', ({ request, server, params }) => serveFile(deps, request, server, params.storeId, params.name), {
      params: FileParams,
      headers: FileHeaders,
      detail: {
        tags,
        summary: 'A stored file (public)',
        description: `The \`url\` of a media file. No credential: an <img> or <video> tag can load it. Served with its real type, X-Content-Type-Options: nosniff, a year of caching (files never change under their id), ETag (If-None-Match: weak, strong or \`*\`) and one byte range (a Range in another unit, with several ranges or not well formed is ignored and the whole file sent). ${DOWNLOADS_RULE}`,
        responses: FILE_RESPONSES,
      },
    })
