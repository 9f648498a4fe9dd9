import { useEffect, useRef, useState } from 'preact/hooks'

/** One series of a chart: a group or a student, one number per time bucket. */
export interface Line {
  label: string
  values: number[]
}

// Distinct on a projector and for the common colour blindnesses; every series also has its own marker
// shape, drawn on each of its bars, so no series is told apart by colour alone.
const COLORS = ['#1f6feb', '#c4320a', '#1a7f37', '#8250df', '#b08800', '#0a7f8c', '#bf3989', '#57606a']
const SHAPES = ['circle', 'square', 'triangle', 'diamond', 'cross'] as const
type Shape = (typeof SHAPES)[number]

export const styleOf = (i: number) => ({ color: COLORS[i % COLORS.length]!, shape: SHAPES[i % SHAPES.length]! })

function Marker({ x, y, shape, color, size = 4 }: { x: number; y: number; shape: Shape; color: string; size?: number }) {
  const s = size
  switch (shape) {
    case 'circle':
      return <circle cx={x} cy={y} r={s} fill={color} />
    case 'square':
      return <rect x={x - s} y={y - s} width={2 * s} height={2 * s} fill={color} />
    case 'triangle':
      return <path d={`M${x} ${y - s - 1}L${x + s + 1} ${y + s}L${x - s - 1} ${y + s}Z`} fill={color} />
    case 'diamond':
      return <path d={`M${x} ${y - s - 1}L${x + s + 1} ${y}L${x} ${y + s + 1}L${x - s - 1} ${y}Z`} fill={color} />
    case 'cross':
      return <path d={`M${x - s} ${y - s}L${x + s} ${y + s}M${x + s} ${y - s}L${x - s} ${y + s}`} stroke={color} stroke-width={2.5} />
  }
}

/** The bar and marker of a series, for legends and tables outside the chart. */
export function Swatch({ index }: { index: number }) {
  const { color, shape } = styleOf(index)
  return (
    <svg class="swatch" width="22" height="16" viewBox="0 0 22 16" aria-hidden="true">
      <rect x="5" y="6" width="12" height="10" fill={color} />
      <Marker x={11} y={4} shape={shape} color={color} size={3} />
    </svg>
  )
}

/** A round top for the y axis (1, 2, 5, 10, 20, 50 …) and the ticks up to it. */
function scale(max: number): number[] {
  if (max <= 4) return Array.from({ length: Math.max(1, max) + 1 }, (_, i) => i)
  const step = [1, 2, 5].map((m) => m * 10 ** Math.floor(Math.log10(max / 4))).find((s) => max / s <= 5) ?? 10 ** Math.ceil(Math.log10(max / 4))
  const top = Math.ceil(max / step) * step
  return Array.from({ length: top / step + 1 }, (_, i) => i * step)
}

const HEIGHT = 260
const PAD = { left: 48, right: 16, top: 14, bottom: 34 }

/**
 * A bar chart drawn as SVG: per time bucket, one bar per series side by side, with the series' marker
 * on top of each bar that is not zero (empty buckets stay flat and quiet, where a line would sit on
 * the axis). One unit of the drawing per CSS pixel (the width follows its box), so its text stays as
 * large on a phone as on a projector. For assistive technology it is one image whose label is
 * `summary`; the numbers are in a table next to it.
 */
export function BarChart({ lines, labels, summary }: { lines: Line[]; labels: string[]; summary: string }) {
  const box = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(640)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const observer = new ResizeObserver(() => setWidth(Math.max(240, Math.round(el.clientWidth))))
    observer.observe(el)
    return () => observer.disconnect()
  }, [])
  const n = Math.max(1, labels.length)
  const ticks = scale(Math.max(0, ...lines.flatMap((l) => l.values)))
  const top = ticks[ticks.length - 1]!
  const plotW = width - PAD.left - PAD.right
  const plotH = HEIGHT - PAD.top - PAD.bottom
  const slot = plotW / n
  // A little air between buckets; the bars of one bucket touch.
  const bar = Math.max(1, (slot * 0.8) / Math.max(1, lines.length))
  const x = (bucket: number, series: number) => PAD.left + bucket * slot + slot * 0.1 + series * bar
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH
  const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(plotW / 64))))
  return (
    <div class="t-chart" ref={box}>
      <svg role="img" aria-label={summary} width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={PAD.left} x2={width - PAD.right} y1={y(t)} y2={y(t)} class="t-grid" />
            <text x={PAD.left - 8} y={y(t)} text-anchor="end" dominant-baseline="middle" class="t-axis">
              {t}
            </text>
          </g>
        ))}
        {labels.map((label, i) =>
          i % every === 0 ? (
            <text key={i} x={PAD.left + (i + 0.5) * slot} y={HEIGHT - 10} text-anchor="middle" class="t-axis">
              {label}
            </text>
          ) : null,
        )}
        {lines.map((line, li) => {
          const { color, shape } = styleOf(li)
          return (
            <g key={line.label} data-series={line.label}>
              {line.values.map((v, i) =>
                v > 0 ? (
                  <g key={i}>
                    <rect class="t-bar" x={x(i, li)} y={y(v)} width={bar} height={y(0) - y(v)} fill={color} data-value={v} />
                    {bar >= 6 && <Marker x={x(i, li) + bar / 2} y={y(v) - 6} shape={shape} color={color} size={Math.min(4, bar / 2)} />}
                  </g>
                ) : null,
              )}
            </g>
          )
        })}
      </svg>
    </div>
  )
}
