import { useState } from 'preact/hooks'
import { ApiError, type Page } from '../api'
import { bytes, ConfirmButton, Done, ErrorNote, Field, Loaded, Paged, Section, useAction, useLoad, when } from '../ui'
import { useStudent } from './context'
import type { Media, MediaUsage } from './types'

/** The store's media library: GET /v1/media, /v1/media/usage, POST /v1/uploads, DELETE /v1/media/:id. */
export function MediaPage() {
  const { call } = useStudent()
  const [page, setPage] = useState(1)
  const media = useLoad(() => call<Page<Media>>('GET', '/media', { query: { page, pageSize: 24 } }), [page])
  const usage = useLoad(() => call<MediaUsage>('GET', '/media/usage'))
  const [inUse, setInUse] = useState<Media>()
  const action = useAction()
  const refresh = () => (media.reload(), usage.reload())

  const upload = (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    // The browser writes the multipart body and its boundary: never set Content-Type by hand.
    const body = new FormData(form)
    void action.run(async () => {
      const file = await call<Media>('POST', '/uploads', { raw: { body } })
      form.reset()
      refresh()
      return file
    }, (f) => `${f.filename} uploaded (${f.mimeType}, ${bytes(f.sizeBytes)}).`)
  }
  const remove = (file: Media, force: boolean) =>
    action.run(async () => {
      setInUse(undefined)
      try {
        await call('DELETE', `/media/${file.id}`, { query: force ? { force: true } : {} })
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) setInUse(file)
        throw e
      }
      refresh()
    }, `${file.filename} deleted.`)

  const uses = usesOf(action.error)
  return (
    <Section title="Media library">
      <Loaded state={usage}>
        {(u) => (
          <div>
            <p>
              {bytes(u.usedBytes)} of {bytes(u.quotaBytes)} used by {u.files} files
            </p>
            <div class="meter" role="meter" aria-label="Space used" aria-valuemin={0} aria-valuemax={u.quotaBytes} aria-valuenow={u.usedBytes}>
              <div style={{ width: `${Math.min(100, (100 * u.usedBytes) / u.quotaBytes)}%` }} />
            </div>
          </div>
        )}
      </Loaded>
      <form class="inline" onSubmit={upload}>
        <Field label="File" hint="JPEG, PNG, WebP, GIF, AVIF up to 10 MiB; MP4, WebM up to 100 MiB.">
          <input name="file" type="file" accept="image/*,video/mp4,video/webm" required />
        </Field>
        <button class="primary" disabled={action.busy}>
          Upload
        </button>
      </form>
      {/* A file in use is said on its own tile, where Delete was pressed (the list may be scrolled far down). */}
      <ErrorNote error={inUse ? undefined : action.error} />
      <Done message={action.done} />
      <Paged state={media} empty="No files yet." onPage={setPage}>
        {(rows) => (
          <div class="grid">
            {rows.map((file) => (
              <figure key={file.id} class="tile">
                {file.kind === 'IMAGE' ? <img src={file.url} alt={file.filename} loading="lazy" /> : <video src={file.url} controls preload="metadata" />}
                <figcaption>
                  <strong>{file.filename}</strong>
                  <small>
                    {file.mimeType} · {bytes(file.sizeBytes)}
                    {file.width ? ` · ${file.width}×${file.height}` : ''}
                  </small>
                  <small>{when(file.createdAt)}</small>
                  <small>
                    <code>{file.id}</code>
                  </small>
                </figcaption>
                <ConfirmButton label="Delete" question={`Delete ${file.filename}?`} onConfirm={() => remove(file, false)} disabled={action.busy} />
                {inUse?.id === file.id && (
                  <div class="in-use">
                    <ErrorNote error={action.error} />
                    {uses.length > 0 && <p>{`It is used by ${uses.join(', ')}. Delete anyway removes it from them, then deletes it.`}</p>}
                    <ConfirmButton label="Delete anyway" question={`Unlink ${file.filename} from what uses it and delete it?`} onConfirm={() => remove(file, true)} />
                  </div>
                )}
              </figure>
            ))}
          </div>
        )}
      </Paged>
    </Section>
  )
}

/** What a 409 MEDIA_IN_USE's details name, in words: "a product image (prod_...)", "a review photo (rev_...)". */
function usesOf(error: unknown): string[] {
  if (!(error instanceof ApiError) || error.code !== 'MEDIA_IN_USE') return []
  return (error.details ?? []).map((d) => {
    const use = d as { usedBy?: string; productId?: string; reviewId?: string }
    const what = use.usedBy === 'productImage' ? 'a product image' : use.usedBy === 'reviewPhoto' ? 'a review photo' : 'a record'
    const of = use.usedBy === 'reviewPhoto' ? use.reviewId : use.productId
    return of ? `${what} (${of})` : what
  })
}
