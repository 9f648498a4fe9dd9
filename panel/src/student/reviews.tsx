import { useState } from 'preact/hooks'
import { Done, ErrorNote, Paged, Section, Table, useAction, useLoad, when } from '../ui'
import { useStudent } from './context'
import type { StoreReview as Review } from './types'
import type { Page } from '../api'

/** GET /v1/store/reviews (hidden ones too) and PATCH /v1/store/reviews/:id to hide or show one. */
export function ReviewsPage() {
  const { call } = useStudent()
  const [page, setPage] = useState(1)
  const reviews = useLoad(() => call<Page<Review>>('GET', '/store/reviews', { query: { page, pageSize: 20 } }), [page])
  const action = useAction()
  const moderate = (review: Review, hidden: boolean) =>
    action.run(async () => {
      await call('PATCH', `/store/reviews/${review.id}`, { body: { hidden } })
      reviews.reload()
    }, hidden ? `"${review.title}" is hidden: it leaves the public list and the product's rating.` : `"${review.title}" is public again.`)
  return (
    <Section title="Reviews">
      <p>Hidden reviews stay here but leave the product page and its rating.</p>
      <ErrorNote error={action.error} />
      <Done message={action.done} />
      <Paged state={reviews} empty="No reviews yet. A customer can review a product after paying for it." onPage={setPage}>
        {(rows) => (
          <Table columns={['Rating', 'Review', 'Customer', 'Shown', { label: 'Actions', hidden: true }]}>
            {rows.map((review) => (
              <tr key={review.id}>
                <td aria-label={`${review.rating} of 5 stars`}>{'★'.repeat(review.rating) + '☆'.repeat(5 - review.rating)}</td>
                <td>
                  <strong class="written">{review.title}</strong>
                  <div class="written">{review.comment}</div>
                  {review.media.map((m) => (
                    <img key={m.id} class="thumb" src={m.url} alt="" loading="lazy" />
                  ))}
                  <small>
                    {review.productName || 'a deleted product'} · {when(review.createdAt)}
                  </small>
                </td>
                <td>{review.customer.name}</td>
                <td>{review.hidden ? <span class="badge warn">hidden</span> : <span class="badge good">public</span>}</td>
                <td>
                  <button type="button" disabled={action.busy} onClick={() => moderate(review, !review.hidden)}>
                    {review.hidden ? 'Show' : 'Hide'}
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Paged>
    </Section>
  )
}
