import { clip } from '../../kernel/errors'

/** A backup or restore the teacher can fix: its message says how. */
export class BackupError extends Error {}

/**
 * An archive that holds what no backup writes (a link, a device, another name) or a database whose
 * schema is not the migrations': it was made or changed by hand, perhaps to harm. Refused whole.
 */
export class RefusedBackup extends BackupError {}

/**
 * Text read from an archive (a name, a message about it), made fit for the teacher's terminal: cut
 * short, with control characters (C0, C1, and the ones that reorder text) written as escapes, so a
 * crafted name can neither move the cursor nor pass for another.
 */
export const printable = (text: string) =>
  clip(text).replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

/** A name read from an archive, printable and in quotes. */
export const quoted = (text: string) => `'${printable(text)}'`
