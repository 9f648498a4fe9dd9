import { useEffect, useState } from 'preact/hooks'
import { ErrorNote, Section, timeOfDay, when } from '../ui'
import { useTeacher } from './context'
import type { ClassBoard } from './types'

/** How often the board asks again: calls are counted within a second, so this is what "live" costs. */
const REFRESH_MS = 5000

const percent = (rate: number) => `${Math.round(rate * 100)} %`
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * Why a group needs a look, each flag in words: its app's errors and webhooks that fail. Students who
 * have not called yet are listed on the tile but raise no flag: at the start of a class that is most groups.
 */
function flagsOf(g: ClassBoard['groups'][number]): string[] {
  const flags: string[] = []
  if (g.errorsToday > 0) flags.push(`error rate ${percent(g.errorRate)}`)
  if (g.failingWebhooks.length > 0) flags.push(count(g.failingWebhooks.length, 'failing webhook'))
  return flags
}

/** The class on the projector: GET /v1/admin/board, a tile per group, read again every few seconds. */
export function BoardPage() {
  const { call } = useTeacher()
  const [board, setBoard] = useState<ClassBoard>()
  const [error, setError] = useState<unknown>()
  useEffect(() => {
    let live = true
    const load = () =>
      call<ClassBoard>('GET', '/admin/board').then(
        (b) => live && (setBoard(b), setError(undefined)),
        (e) => live && setError(e),
      )
    load()
    const timer = setInterval(load, REFRESH_MS)
    return () => {
      live = false
      clearInterval(timer)
    }
  }, [])
  return (
    <Section title="Class board">
      <p class="muted" role="status">
        Today{board ? ` (${board.today.timeZone})` : ''}, updated every {REFRESH_MS / 1000} s{board ? `; last at ${timeOfDay(board.at)}` : ''}.
      </p>
      <ErrorNote error={error} />
      {board?.groups.length === 0 && <p>No groups yet.</p>}
      <ul class="board">
        {board?.groups.map((g) => {
          const flags = flagsOf(g)
          const trouble = flags.length > 0
          return (
            <li key={g.groupId} class={trouble ? 'tile-board flag' : 'tile-board'} aria-label={g.name}>
              <h3>
                <a href={`#/teacher/groups/${g.groupId}`}>{g.name}</a>
                {trouble && <span class="badge bad">needs a look</span>}
              </h3>
              {trouble && (
                <p class="why" data-testid="why">
                  {flags.join(' · ')}
                </p>
              )}
              <p class="big" data-testid="calls">
                {g.callsToday} <small>{g.callsToday === 1 ? 'call' : 'calls'} today</small>
              </p>
              <dl>
                <dt>Errors</dt>
                <dd data-testid="errors">
                  {g.errorsToday} ({percent(g.errorRate)})
                </dd>
                {g.shopFront.callsToday > 0 && (
                  <>
                    <dt>Shop front</dt>
                    <dd data-testid="shop-front">
                      {count(g.shopFront.callsToday, 'call')}, {count(g.shopFront.errorsToday, 'error')} ({percent(g.shopFront.errorRate)})
                    </dd>
                  </>
                )}
                <dt>Last call</dt>
                <dd>{g.lastCallAt ? timeOfDay(g.lastCallAt) : 'none today'}</dd>
                <dt>No calls yet</dt>
                <dd data-testid="silent">{g.members === 0 ? 'the group has no members' : g.silentStudents.length === 0 ? 'everyone has called' : g.silentStudents.map((s) => s.name).join(', ')}</dd>
                {g.failingWebhooks.length > 0 && (
                  <>
                    <dt>Failing webhooks</dt>
                    <dd data-testid="webhooks">
                      {g.failingWebhooks.map((w) => (
                        <div key={w.url}>
                          <code>{w.url}</code> ({w.failed} failed)
                        </div>
                      ))}
                    </dd>
                  </>
                )}
              </dl>
            </li>
          )
        })}
      </ul>
      {board && <p class="muted">Read at {when(board.at)}.</p>}
    </Section>
  )
}
