import { Elysia } from 'elysia'
import { AppError, clip } from '../../kernel/errors'
import { panelFiles, type PanelFile } from './bundle'

// The web panel at /panel: a single page for students (their store) and the teacher (the class).
// It is a client of the public API like any student app, so these routes serve only its files and
// need no credential; the page asks for a token and sends it on every API call.

// The page talks only to this server; images may come from the external URLs a product links.
const SECURITY = {
  'content-security-policy': "default-src 'self'; img-src 'self' data: blob: http: https:; media-src 'self' http: https:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}

const send = (file: PanelFile, cache: string) =>
  new Response(file.text, { headers: { 'content-type': file.type, 'cache-control': cache, ...SECURITY } })

export const panelRoutes = () =>
  new Elysia({ name: 'panel' })
    .get(
      '/panel',
      async () => {
        const index = (await panelFiles()).find((f) => f.name === 'index.html')!
        return send(index, 'no-cache')
      },
      { detail: { hide: true } },
    )
    .get(
      '/panel/:name',
      async ({ params }) => {
        const file = (await panelFiles()).find((f) => f.name === params.name && f.name !== 'index.html')
        if (!file) throw new AppError('NOT_FOUND', `The panel has no file '${clip(params.name)}'. Open /panel to load the panel.`)
        // File names carry a content hash: a new build has new names, so a file never changes.
        return send(file, 'public, max-age=31536000, immutable')
      },
      { detail: { hide: true } },
    )
