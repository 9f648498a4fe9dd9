import type { Member } from './types'

/**
 * The members box of the create-group form: one student a line, `rm,name` or `rm;name` as a
 * spreadsheet copies it (the name may hold commas). Returns the members, or the problems by line so the
 * teacher fixes them before sending: a line without both parts, an RM already on an earlier line.
 */
export function parseMembers(text: string): { members: Member[]; problems: string[] } {
  const members: Member[] = []
  const problems: string[] = []
  /** Where each RM was first written, by the RM ignoring case, as the server compares them. */
  const seen = new Map<string, number>()
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (!line) return
    const at = line.search(/[,;]/)
    const rm = at < 0 ? '' : line.slice(0, at).trim()
    const name = at < 0 ? '' : line.slice(at + 1).trim()
    const first = seen.get(rm.toLowerCase())
    if (!rm || !name) problems.push(`line ${i + 1}: write the RM, a comma and the name, such as 12345,Ana Souza`)
    else if (first !== undefined) problems.push(`line ${i + 1}: RM ${rm} is already on line ${first}; a student is listed once`)
    else {
      seen.set(rm.toLowerCase(), i + 1)
      members.push({ rm, name })
    }
  })
  return { members, problems }
}
