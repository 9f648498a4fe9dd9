import { printable as printableOnTerminal } from '../../kernel/control-characters'
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
 * short, and escaped like everything the program prints, so a crafted name can neither move the
 * cursor nor pass for another.
 */
export const printable = (text: string) => printableOnTerminal(clip(text))

/** A name read from an archive, printable and in quotes. */
export const quoted = (text: string) => `'${printable(text)}'`
