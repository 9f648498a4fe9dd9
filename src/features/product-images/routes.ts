import { Elysia } from 'elysia'
import { z } from 'zod'
import { authMacro, UPLOAD_EXTENSION } from '../../kernel/auth/macro'
import { ErrorEnvelope } from '../../kernel/errors'
import { ProductImage } from '../catalog'
import { Media, type UploadDeps, uploadRequestBody, UPLOADS_RULE } from '../media'
import { ImageIdParams, LinkImageBody, ProductIdParams, UpdateImageBody } from './model'
import { linkImage, MAX_IMAGES_PER_PRODUCT, unlinkImage, updateImage, uploadAndLink } from './service'
import { noContent } from '../../kernel/http/no-content'

const tags = ['Media']

export const productImageRoutes = (deps: UploadDeps) =>
  new Elysia()
    .use(authMacro)
    .post(
      '/products/:id/media',
      async ({ ctx, params, request, set }) => {
        const linked = await uploadAndLink(deps, ctx, params.id, request)
        set.status = 201
        return linked
      },
      {
        auth: 'secret',
        params: ProductIdParams,
        response: { 201: z.object({ image: ProductImage, media: Media }), 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope, 413: ErrorEnvelope, 415: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Upload a picture and link it to a product, in one call',
          description: `multipart/form-data with the picture in the field \`file\` and, optionally, the field \`isPrimary\` (true or false). The file enters the store library (the same rules as POST /v1/uploads) and becomes one of the product images; answers both. If the link cannot be made (e.g. the file is a video), nothing is kept. A product has at most ${MAX_IMAGES_PER_PRODUCT} images: one more is 409 LIMIT_REACHED, before the file is received. ${UPLOADS_RULE}`,
          requestBody: uploadRequestBody('JPEG, PNG, WebP, GIF, AVIF (10 MiB); a video is refused here and goes to POST /v1/uploads', { isPrimary: { type: 'string', enum: ['true', 'false'], description: 'make it the cover' } }),
          [UPLOAD_EXTENSION]: true,
        } as never,
      },
    )
    .post(
      '/products/:id/images',
      ({ ctx, params, body, set, request }) => {
        set.status = 201
        return linkImage(deps, ctx, params.id, body, deps.publicUrl.for(request))
      },
      {
        auth: 'secret',
        params: ProductIdParams,
        body: LinkImageBody,
        response: { 201: ProductImage, 400: ErrorEnvelope, 404: ErrorEnvelope, 409: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Link a library image or an external URL to a product',
          description: 'Send `mediaId` (a picture of the store library) or `url` (http or https). The first image of a product is its cover (`isPrimary`); `isPrimary: true` makes this one the cover.' + ` A product has at most ${MAX_IMAGES_PER_PRODUCT} images: one more is 409 LIMIT_REACHED. A picture the product already has (the same mediaId, or the same url) is 409 CONFLICT naming its image, which PATCH /v1/images/:id makes the cover or moves.`,
        },
      },
    )
    .patch('/images/:id', ({ ctx, params, body, request }) => updateImage(deps, ctx, params.id, body, deps.publicUrl.for(request)), {
      auth: 'secret',
      params: ImageIdParams,
      body: UpdateImageBody,
      response: { 200: ProductImage, 400: ErrorEnvelope, 404: ErrorEnvelope },
      detail: {
        tags,
        summary: 'Change the cover or the order of a product image',
        description: '`isPrimary: true` makes it the cover (the previous cover stops being one); `position` moves it (0 is first; larger numbers go last). Positions stay 0..n-1 without gaps.',
      },
    })
    .delete(
      '/images/:id',
      ({ ctx, params }) => {
        unlinkImage(deps, ctx, params.id)
        return noContent()
      },
      {
        auth: 'secret',
        params: ImageIdParams,
        response: { 404: ErrorEnvelope },
        detail: {
          tags,
          summary: 'Unlink an image from its product',
          description: 'The library file stays (DELETE /v1/media/:id removes it). If it was the cover, the next image becomes the cover. 204 with no body.',
        },
      },
    )
