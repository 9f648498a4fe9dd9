import { printable } from './control-characters'

/**
 * A line-per-event logger. It never receives request bodies, headers or credentials: what it prints
 * is safe to paste in a class forum. A line is one line on the teacher's terminal, whatever a message
 * quotes: its control characters are escaped (JSON leaves DEL and C1 ones as they are).
 */
export interface Log {
  info(message: string, fields?: Record<string, unknown>): void
  error(message: string, fields?: Record<string, unknown>): void
}

const line = (level: string, message: string, fields?: Record<string, unknown>) =>
  `${new Date().toISOString()} ${level} ${printable(`${message}${fields ? ' ' + JSON.stringify(fields) : ''}`)}\n`

export const consoleLog: Log = {
  info: (m, f) => process.stdout.write(line('info', m, f)),
  error: (m, f) => process.stderr.write(line('error', m, f)),
}

/** Keeps lines in memory: tests read them to check what would have been printed. */
export function memoryLog(): Log & { lines: string[] } {
  const lines: string[] = []
  return {
    lines,
    info: (m, f) => lines.push(line('info', m, f)),
    error: (m, f) => lines.push(line('error', m, f)),
  }
}
