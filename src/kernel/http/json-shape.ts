import { AppError } from '../errors'

/**
 * How deep a JSON body may nest and how many values it may hold. No route takes anything close (the
 * deepest body is a product with variants and their options, four levels; the largest a group with
 * fifty members), and every later step — parsing, validation, an error that names the problem — costs
 * in proportion to the shape, so it is bounded before anything walks the value: JSON.parse alone
 * is slow on a megabyte of `[`. See docs/hostile-input.md.
 */
export const MAX_JSON_DEPTH = 32
export const MAX_JSON_VALUES = 10_000
/** As messages write it, 10,000 (grouped by hand: Intl's formatting, set up at import, cost every start about a millisecond). */
export const MAX_JSON_VALUES_TEXT = String(MAX_JSON_VALUES).replace(/\B(?=(\d{3})+$)/g, ',')

/** The characters that matter outside strings; everything between them is skipped by the regex engine. */
const STRUCTURE = /["[\]{},]/g

/**
 * One pass over the text: nesting depth, and the number of values (separators and containers). Strings
 * are skipped whole with indexOf, so the pass stays cheap (docs/hostile-input.md). Malformed text is
 * left for JSON.parse to describe; this only refuses shapes past the limits.
 */
export function assertJsonShape(text: string): void {
  let depth = 0
  let values = 0
  STRUCTURE.lastIndex = 0
  for (let match = STRUCTURE.exec(text); match; match = STRUCTURE.exec(text)) {
    const c = match[0]
    if (c === '"') {
      STRUCTURE.lastIndex = endOfString(text, match.index + 1)
      continue
    }
    if (c === '[' || c === '{') {
      if (++depth > MAX_JSON_DEPTH) throw tooDeep()
    } else if (c === ']' || c === '}') {
      depth--
      continue
    }
    if (++values > MAX_JSON_VALUES) throw tooMany()
  }
}

/** The index just past the quote that closes the string opened before `from` (the end of the text if none does). */
function endOfString(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return quote + 1
  }
  return text.length
}

const tooDeep = () =>
  new AppError(
    'VALIDATION_ERROR',
    `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep. No route takes that: send the object the route documents at /docs.`,
    [{ path: '', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
  )

const tooMany = () =>
  new AppError(
    'VALIDATION_ERROR',
    `The JSON body holds more than ${MAX_JSON_VALUES_TEXT} values. No route takes that many: send fewer per request, split over several requests.`,
    [{ path: '', message: `more than ${MAX_JSON_VALUES} values` }],
  )
