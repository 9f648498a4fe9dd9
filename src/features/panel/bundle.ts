import { join } from 'node:path'

/** One built file of the panel: its name under /panel/, content type and text. */
export interface PanelFile {
  name: string
  type: string
  text: string
}

declare const STOREFRONT_PANEL: PanelFile[] | undefined

const SOURCE = join(import.meta.dir, '..', '..', '..', 'panel', 'index.html')

/**
 * Bundles the panel (panel/index.html and the TSX it loads) with Bun's bundler. `bun run build`
 * calls it and embeds the result in the executable; running from source, the server calls it on
 * the first request to /panel (a short wait, once) and keeps the result.
 */
export async function buildPanel(): Promise<PanelFile[]> {
  const result = await Bun.build({ entrypoints: [SOURCE], target: 'browser', minify: true, publicPath: '/panel/' })
  if (!result.success) throw new AggregateError(result.logs, 'the panel did not build')
  return Promise.all(
    result.outputs.map(async (o) => ({ name: o.path.replace(/^\.\//, ''), type: o.type, text: await o.text() })),
  )
}

let built: Promise<PanelFile[]> | undefined

/** The panel's files: embedded in the executable, or built from source once. */
export const panelFiles = (): Promise<PanelFile[]> =>
  (built ??= typeof STOREFRONT_PANEL !== 'undefined' ? Promise.resolve(STOREFRONT_PANEL) : buildPanel())
