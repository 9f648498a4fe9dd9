import { printable } from './control-characters'

// How files and paths are written in what the teacher's commands print.

const PROBLEMS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOSPC: 'the disk is full',
  EROFS: 'the disk is read-only',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EEXIST: 'a file is in the way',
  ENOENT: 'there is no such file',
}

/** What went wrong with a file, in words, from its error code. */
export function fileProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code
  return code ? (PROBLEMS[code] ?? code) : printable((e as Error).message)
}

/** A path as a shell takes it whole: in quotes when it holds a space or a quote (a Windows user's folder often does). */
export const shellQuoted = (path: string) => (/[\s"'`$&|;()<>]/.test(path) ? `"${path.replaceAll('"', '\\"')}"` : path)
