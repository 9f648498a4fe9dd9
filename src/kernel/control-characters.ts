import { z } from 'zod'

// Control characters: C0 (U+0000 to U+001F, newline, carriage return and tab included), DEL (U+007F)
// and C1 (U+0080 to U+009F).
//
// Names that students type reach the teacher's terminal (`storefront activity`, the import's report)
// and the teacher's spreadsheets. On a terminal, ESC (U+001B) and its one-character C1 forms (CSI,
// U+009B; OSC, U+009D) start sequences that clear the screen, move the cursor over rows already
// printed, recolour them or set the window title; a line break or a carriage return forges a row.
// So a name refuses them when it is typed (`nameText`), and whatever the program prints on a terminal
// escapes them (`printable`): a database an older version wrote may hold them still.

const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const CONTROLS = new RegExp(CONTROL.source, 'g')

/** `text` without its control characters, for a name the program keeps but no one typed as such (an uploaded file's). */
export const withoutControls = (text: string): string => text.replace(CONTROLS, '')

const codePoint = (c: string) => `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`

/** Control characters but the line break, carriage return and tab: what a text of several lines (a description) refuses. */
const CONTROL_IN_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/
/** Half of a UTF-16 surrogate pair without its other half: no character at all, and six bytes of JSON (`\ud800`). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * What is wrong with `text` as `field`: a control character (with `lines`, a text of several lines
 * keeps its line breaks and tabs) or a lone surrogate, the first one found, where, and what to do;
 * undefined when nothing is. Either would reach the terminal or a page as is, and each is six bytes
 * of every JSON answer it is in.
 */
export function controlProblem(text: string, field: string, lines = false): string | undefined {
  const at = text.search(lines ? CONTROL_IN_LINES : CONTROL)
  if (at >= 0) return `${field} holds a control character (${codePoint(text[at]!)} at position ${at + 1}); remove control characters${lines ? '' : ', newlines and tabs included'}`
  const half = text.search(LONE_SURROGATE)
  if (half >= 0) return `${field} holds half of a character (${codePoint(text[half]!)} at position ${half + 1}, a surrogate without its pair); send the text as it was typed, in UTF-8`
  return undefined
}

/** A zod check that refuses what controlProblem finds in `field`, with its message. */
export function withoutControlCharacters<S extends z.ZodString>(schema: S, field: string, lines = false): S {
  return schema.superRefine((text, issues) => {
    const problem = controlProblem(text, field, lines)
    if (problem) issues.addIssue({ code: 'custom', message: problem })
  }) as S
}

/**
 * A name a person types (a group, a member, a customer, an API key, a store): trimmed, 1 to `max`
 * characters, no control characters. The surrounding whitespace, line breaks included, is trimmed
 * away first; one inside the name is refused. Accents are kept composed (NFC): an á typed as a plus
 * a combining accent (as some keyboards and macOS file names send it) is the á of another name, for
 * the names compared ignoring case and accents.
 */
export const nameText = (field: string, max: number) =>
  withoutControlCharacters(z.string().trim().normalize('NFC').min(1, `${field} is required`).max(max, `${field} has at most ${max} characters`), field)
    .superRefine((name, issues) => {
      const problem = unseenProblem(name, field)
      if (problem) issues.addIssue({ code: 'custom', message: problem })
    })
    .describe(
      `1 to ${max} characters on one line, at least one of them visible: control characters (line breaks, tabs, escapes) and the characters that override the direction of text (U+202A to U+202E, U+2066 to U+2069) are refused.`,
    )

/** The characters that override or isolate the direction of text: a name holding one may show as another (abc\u202edef shows as abcfed). */
const REORDERING = /[\u202a-\u202e\u2066-\u2069]/
/** Nothing a reader sees: spaces, and the invisible format characters (a zero-width space, a joiner, a direction mark). */
const NOTHING_VISIBLE = /^[\p{Z}\p{Cf}\s]*$/u

/**
 * What makes `name` other than what a reader sees: a character that reorders the text around it, or
 * no visible character at all (a zero-width space passes `min(1)`); undefined when neither. A name is
 * read by the teacher on the class board and in spreadsheets, where either would pass for another name
 * or for none. The marks a right-to-left name may need (U+200E, U+200F) and the joiners of emoji and
 * of some scripts are kept.
 */
function unseenProblem(name: string, field: string): string | undefined {
  const at = name.search(REORDERING)
  if (at >= 0) return `${field} holds a character that overrides the direction of text (${codePoint(name[at]!)} at position ${at + 1}), with which a name shows as another; remove it`
  if (name !== '' && NOTHING_VISIBLE.test(name)) return `${field} has no visible character, only spaces or invisible ones (${codePoint(name[0]!)}); write the name`
  return undefined
}

// What a terminal prints but should not obey: the control characters, and the ones that reorder text
// (left-to-right and right-to-left marks, embeddings, overrides and isolates), with which a printed
// name could pass for another or drag the rest of its row around.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const UNPRINTABLES = new RegExp(UNPRINTABLE.source, 'g')

const escaped = (c: string) => {
  const code = c.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * `text` with every control or reordering character written as a visible escape (ESC as `\x1b`, a
 * newline as `\x0a`, a right-to-left override as `\u202e`), for printing on a terminal: the one way
 * the program escapes what it prints.
 */
export const printable = (text: string): string => (UNPRINTABLE.test(text) ? text.replace(UNPRINTABLES, escaped) : text)

/** `value` with `printable` applied to every string in it (a report, an import's summary). */
export function printableValues<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T
  if (Array.isArray(value)) return value.map(printableValues) as T
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, printableValues(v)])) as T
  }
  return value
}
