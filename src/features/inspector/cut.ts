// What the inspector keeps is cut when the call is recorded, and what is cut is copied: in
// JavaScriptCore a slice of a string shares the whole string's memory, so 512 characters sliced from a
// long URL would keep all of it alive in the ring for as long as the entry lives.

/** A string of its own with the same characters (UTF-16 code units, lone surrogates included). */
export const copyOf = (text: string) => Buffer.from(text, 'utf16le').toString('utf16le')

/** `text` cut at `limit` characters; when cut, a copy that holds nothing of the longer text. */
export const cut = (text: string, limit: number): string => (text.length <= limit ? text : copyOf(text.slice(0, limit)))

/** `cut`, saying whether anything was cut. */
export const cutCopy = (text: string, limit: number) => ({ text: cut(text, limit), truncated: text.length > limit })
