import { useEffect } from 'preact/hooks'
import { CSV_BOM } from '../../../src/kernel/csv'
import { showList } from '../router'
import { Done, ErrorNote, Field, Loaded, Section, Table, useAction, useLoad, when, dateOnly, timeOfDay } from '../ui'
import { BarChart, Swatch, type Line } from './chart'
import { useTeacher } from './context'
import type { ActivityReport, ActivitySeries } from './types'

const WINDOWS = {
  day: { label: 'Last 24 hours, by hour', bucket: 'hour', unit: 'hour', during: 'in the last 24 hours' },
  week: { label: 'Last 7 days, by day', bucket: 'day', unit: 'day', during: 'in the last 7 days' },
} as const
type WindowName = keyof typeof WINDOWS

const HOUR = 3_600_000
const DAY = 24 * HOUR
const REFRESH_MS = 10_000

/**
 * The window's start: 24 whole hours, or 7 whole days the current one included (the series rounds a
 * start down to its bucket, the day of the server's time zone; the totals are asked from there).
 */
function fromOf(name: WindowName, now = Date.now()): string {
  const start = name === 'day' ? now - (now % HOUR) - 23 * HOUR : now - 6 * DAY
  return new Date(start).toISOString()
}

/** `#/teacher/activity?window=week&group=<id>`: the screen's choices live in the address, so a reload keeps them. */
function choicesOf(route: string): { window: WindowName; group: string } {
  const params = new URLSearchParams(route.split('?')[1] ?? '')
  return { window: params.get('window') === 'week' ? 'week' : 'day', group: params.get('group') ?? '' }
}

const choose = (choices: { window: WindowName; group: string }) => showList('/teacher/activity', { window: choices.window === 'day' ? '' : choices.window, group: choices.group })

/**
 * The CSV separator a spreadsheet in the browser's language splits on: where decimals are written with
 * a comma (pt-BR, de, fr), Excel takes `;`, and opens a comma-separated file as one column.
 */
const spreadsheetSeparator = () => ((1.5).toLocaleString().includes(',') ? 'semicolon' : 'comma')

const sum = (values: number[]) => values.reduce((a, n) => a + n, 0)

interface ActivityData {
  report: ActivityReport
  series?: ActivitySeries
  seriesError?: unknown
  /** Where the totals start: the chart's first bucket, so both count the same calls. */
  from: string
  at: Date
}

/** GET /v1/admin/activity (totals) and /v1/admin/activity/series (the chart), refreshed every 10 s while the tab is shown. */
export function ActivityPage({ route }: { route: string }) {
  const { call } = useTeacher()
  const choices = choicesOf(route)
  const win = WINDOWS[choices.window]
  const activity = useLoad<ActivityData>(async () => {
    const asked = fromOf(choices.window)
    // The chart first: the series starts at the start of its first bucket (a day of the server's time
    // zone), the report at the hour of its `from`, so the totals are asked from where the chart starts.
    const series = await call<ActivitySeries>('GET', '/admin/activity/series', { query: { from: asked, bucket: win.bucket } }).then(
      (series) => ({ series }),
      (seriesError: unknown) => ({ seriesError }),
    )
    const from = 'series' in series ? series.series.from : asked
    const report = await call<ActivityReport>('GET', '/admin/activity', { query: { from } })
    return { report, ...series, from, at: new Date() }
  }, [choices.window])
  const { reload } = activity
  useEffect(() => {
    const visible = () => document.visibilityState === 'visible'
    const timer = setInterval(() => visible() && reload(), REFRESH_MS)
    const onShow = () => visible() && reload()
    document.addEventListener('visibilitychange', onShow)
    return () => {
      clearInterval(timer)
      document.removeEventListener('visibilitychange', onShow)
    }
  }, [reload])
  const download = useAction()
  const separator = spreadsheetSeparator()
  const downloadCsv = () =>
    download.run(async () => {
      const from = activity.data?.from ?? fromOf(choices.window)
      const text = await call<string>('GET', '/admin/activity', { query: { format: 'csv', separator, from, groupId: choices.group || undefined } })
      const link = document.createElement('a')
      // Reading the answer as text dropped its byte order mark, which tells Excel the file is UTF-8: put back.
      link.href = URL.createObjectURL(new Blob([CSV_BOM, text], { type: 'text/csv' }))
      link.download = 'activity.csv'
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
    }, `activity.csv downloaded, its cells split by ${separator === 'semicolon' ? 'semicolons, as a spreadsheet in this browser\u2019s language expects' : 'commas'}.`)

  return (
    <>
      <h1>Activity</h1>
      <p>
        Calls to the API per group and per student. A call counts for a student when made with their token or with the secret key and the header <code>X-Student-RM</code>; calls with the
        publishable key (anyone who opens a shop page can copy it) count for the group's shop front. Errors are answers with status 400 or above.
      </p>
      <div class="t-toolbar">
        <fieldset class="t-choice">
          <legend>Window</legend>
          {(Object.keys(WINDOWS) as WindowName[]).map((name) => (
            <label key={name}>
              <input type="radio" name="window" value={name} checked={choices.window === name} onChange={() => choose({ ...choices, window: name })} /> {WINDOWS[name].label}
            </label>
          ))}
        </fieldset>
        <Field label="Group">
          <select value={choices.group} onChange={(e) => choose({ ...choices, group: (e.currentTarget as HTMLSelectElement).value })}>
            <option value="">All groups</option>
            {activity.data?.report.groups.map((g) => (
              <option key={g.groupId} value={g.groupId}>
                {g.name}
              </option>
            ))}
          </select>
        </Field>
        <div class="actions">
          <button type="button" onClick={reload} disabled={activity.loading}>
            Refresh
          </button>
          <button type="button" onClick={downloadCsv} disabled={download.busy}>
            Download CSV
          </button>
        </div>
      </div>
      <p class="muted">
        {activity.data ? `Updated at ${timeOfDay(activity.data.at)}. ` : ''}
        Refreshes every 10 seconds while this tab is shown.
      </p>
      <ErrorNote error={download.error} />
      <Done message={download.done} />
      <Loaded state={activity}>
        {(data) => {
          const groups = choices.group ? data.report.groups.filter((g) => g.groupId === choices.group) : data.report.groups
          if (data.report.groups.length === 0) return <p>No groups yet: create one under Groups, or import the class list.</p>
          return (
            <>
              {data.series ? (
                <Charts series={data.series} group={choices.group} during={win.during} unit={win.unit} />
              ) : (
                <Section title="Over time">
                  <ErrorNote error={data.seriesError} />
                </Section>
              )}
              <Totals groups={groups} during={win.during} />
            </>
          )
        }}
      </Loaded>
    </>
  )
}

function timeLabels(series: ActivitySeries): string[] {
  return series.times.map((t) =>
    series.bucket === 'hour'
      ? timeOfDay(t, { hour: '2-digit', minute: '2-digit' })
      : dateOnly(t, { day: 'numeric', month: 'short', timeZone: series.timeZone }),
  )
}

/** Calls and, beside them, errors: one series of bars per group, or per student of the chosen group. */
function Charts({ series, group, during, unit }: { series: ActivitySeries; group: string; during: string; unit: string }) {
  const chosen = series.groups.find((g) => g.groupId === group)
  const labels = timeLabels(series)
  let calls: Line[]
  let errors: Line[]
  if (chosen) {
    calls = chosen.students.map((s) => ({ label: s.name, values: s.calls }))
    errors = chosen.students.map((s) => ({ label: s.name, values: s.errors }))
    // The shop front right after the students in both charts, so that it has the same colour in each.
    if (sum(chosen.shopFront.calls) > 0) {
      calls.push({ label: 'Shop front', values: chosen.shopFront.calls })
      errors.push({ label: 'Shop front', values: chosen.shopFront.errors })
    }
    if (sum(chosen.unattributed) > 0) calls.push({ label: 'Unattributed', values: chosen.unattributed })
  } else {
    calls = series.groups.map((g) => ({ label: g.name, values: g.calls }))
    errors = series.groups.map((g) => ({ label: g.name, values: g.errors }))
  }
  const who = chosen ? `the students of ${chosen.name}` : 'each group'
  const describe = (what: string, lines: Line[]) =>
    `${what} per ${unit} ${during}, ${who}: ${lines.map((l) => `${l.label} ${sum(l.values)}`).join(', ') || 'none'}. Total ${sum(lines.map((l) => sum(l.values)))}.`
  return (
    <Section title={chosen ? `Over time: ${chosen.name}` : 'Over time'}>
      <ul class="t-legend" aria-label="Series">
        {calls.map((l, i) => (
          <li key={l.label}>
            <Swatch index={i} /> {l.label}
          </li>
        ))}
      </ul>
      <div class="t-charts">
        <figure>
          <figcaption>Calls</figcaption>
          <BarChart lines={calls} labels={labels} summary={describe('Calls', calls)} />
        </figure>
        <figure>
          <figcaption>Errors</figcaption>
          <BarChart lines={errors} labels={labels} summary={describe('Errors', errors)} />
        </figure>
      </div>
      <details class="t-details">
        <summary>The chart's numbers as a table</summary>
        <Table
          caption={{ text: `Calls and errors per ${unit}`, hidden: true }}
          columns={[
            `Start of the ${unit}`,
            ...calls.map((l) => ({ label: `${l.label}: calls`, num: true })),
            ...errors.map((l) => ({ label: `${l.label}: errors`, num: true })),
          ]}
        >
          {series.times.map((t, i) => (
            <tr key={t}>
              <th scope="row">{series.bucket === 'hour' ? when(t) : labels[i]}</th>
              {calls.map((l) => (
                <td key={l.label} class="num">
                  {l.values[i]}
                </td>
              ))}
              {errors.map((l) => (
                <td key={l.label} class="num">
                  {l.values[i]}
                </td>
              ))}
            </tr>
          ))}
        </Table>
      </details>
    </Section>
  )
}

const NoCalls = () => <span class="badge warn">no calls</span>

/** The window's totals: a row per group, then a table per group with its students; a student with no calls is marked. */
function Totals({ groups, during }: { groups: ActivityReport['groups']; during: string }) {
  return (
    <Section title={`Totals ${during}`}>
      <Table
        caption={{ text: 'Calls per group', hidden: true }}
        columns={['Group', { label: 'Calls', num: true }, { label: 'Errors', num: true }, { label: 'Unattributed', num: true }, { label: 'Shop front', num: true }, 'Last call', { label: 'Students with no calls', num: true }]}
      >
        {groups.map((g) => {
          const idle = g.students.filter((s) => s.calls === 0).length
          return (
            <tr key={g.groupId} class={g.calls === 0 ? 'zero' : undefined}>
              <th scope="row">
                <a href={`#/teacher/groups/${g.groupId}`}>{g.name}</a> {g.calls === 0 && <NoCalls />}
              </th>
              <td class="num">{g.calls}</td>
              <td class="num">{g.errors}</td>
              <td class="num">{g.unattributed}</td>
              <td class="num">{g.shopFront.calls}</td>
              <td>{when(g.lastCallAt)}</td>
              <td class="num">{idle}</td>
            </tr>
          )
        })}
      </Table>
      {groups.map((g) => (
        <Table key={g.groupId} caption={{ text: `Students of ${g.name}` }} columns={['Student', 'RM', { label: 'Calls', num: true }, { label: 'Errors', num: true }, 'Last call']}>
          {g.students.length === 0 && (
            <tr>
              <td colSpan={5}>No members.</td>
            </tr>
          )}
          {g.students.map((s) => (
            <tr key={s.rm} class={s.calls === 0 ? 'zero' : undefined}>
              <th scope="row">
                {s.name} {s.calls === 0 && <NoCalls />}
              </th>
              <td>{s.rm}</td>
              <td class="num">{s.calls}</td>
              <td class="num">{s.errors}</td>
              <td>{when(s.lastCallAt)}</td>
            </tr>
          ))}
        </Table>
      ))}
    </Section>
  )
}
