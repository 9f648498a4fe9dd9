import type { Member } from './types'

/**
 * The members box of the create-group form: one student a line, `rm,name` (the name may hold
 * commas). Returns the members, or the problems by line so the teacher fixes them before sending.
 */
export function parseMembers(text: string): { members: Member[]; problems: string[] } {
  const members: Member[] = []
  const problems: string[] = []
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim()
    if (!line) return
    const comma = line.indexOf(',')
    const rm = comma < 0 ? '' : line.slice(0, comma).trim()
    const name = comma < 0 ? '' : line.slice(comma + 1).trim()
    if (!rm || !name) problems.push(`line ${i + 1}: write the RM, a comma and the name, such as 12345,Ana Souza`)
    else members.push({ rm, name })
  })
  return { members, problems }
}
