import { z } from 'zod'
import { PageQuery } from '../../kernel/pagination'

export const Media = z
  .object({
    id: z.string(),
    kind: z.enum(['IMAGE', 'VIDEO']),
    url: z.string().describe('Absolute public URL of the file (no credential needed), under /v1/files/'),
    mimeType: z.string().describe('The real type, recognised from the bytes'),
    sizeBytes: z.number().int(),
    filename: z.string().describe('The name the file was uploaded with (display only)'),
    width: z.number().int().optional().describe('Images only, in pixels'),
    height: z.number().int().optional().describe('Images only, in pixels'),
    createdAt: z.string(),
  })
  .meta({ id: 'Media' })
export type Media = z.infer<typeof Media>

export const MediaListQuery = PageQuery.extend({ kind: z.enum(['IMAGE', 'VIDEO']).optional() })

const KindUsage = z.object({ files: z.number().int(), bytes: z.number().int() })
export const MediaUsage = z.object({
  usedBytes: z.number().int(),
  quotaBytes: z.number().int(),
  files: z.number().int(),
  byKind: z.object({ IMAGE: KindUsage, VIDEO: KindUsage }),
})

export const MediaIdParams = z.object({ id: z.string() })

/**
 * The request headers a file's answer depends on (files.ts). Any value passes: a Range that cannot be
 * read is ignored, one that starts past the end is a 416, an If-None-Match that is not the file's ETag is ignored.
 */
export const FileHeaders = z.object({
  range: z
    .string()
    .optional()
    .describe(
      'One range of bytes: `bytes=0-99`, `bytes=100-` or `bytes=-100` (the last 100); the answer is a 206. Another unit, several ranges or a header that is not well formed is ignored: 200 with the whole file. A range that starts past the end is a 416.',
    ),
  'if-none-match': z
    .string()
    .optional()
    .describe('The ETag of a copy you have (`"med_…"` or `W/"med_…"`), or `*`: the answer is a 304 with no body while it is current.'),
})

export const DeleteMediaQuery = z.strictObject({
  force: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('true removes the file even where products or reviews use it, unlinking it from them'),
})

export const FileParams = z.object({ storeId: z.string(), name: z.string() })

/** What the library takes, for the field `file` of an upload. */
export const LIBRARY_FILE = 'JPEG, PNG, WebP, GIF, AVIF (10 MiB) or MP4, WebM (100 MiB)'

/** The multipart body of uploads, for the OpenAPI document (the route reads the stream itself). */
export const uploadRequestBody = (file: string, extra: Record<string, object> = {}) => ({
  required: true,
  content: {
    'multipart/form-data': {
      schema: {
        type: 'object',
        required: ['file'],
        properties: { file: { type: 'string', format: 'binary', description: file }, ...extra },
      },
    },
  },
})
