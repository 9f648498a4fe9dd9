import type { Member } from './types'

/**
 * The members box of the create-group form: one student a line, `rm,name` or `rm;name` as a
 * spreadsheet copies it (the name may hold commas). Returns the members, or the problems by line so the
 * teacher fixes them before sending: a line without both parts, an RM already on an earlier line.
 */
export function parseMembers(text: string): { members: Member[]; problems: string[]; lines: number[] } {
  const members: Member[] = []
  /** The line of the box each member came from. */
  const lines: number[] = []
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
      lines.push(i + 1)
    }
  })
  return { members, problems, lines }
}

/**
 * The server's refusal of the members sent, said as the box's own problems are: by line (`members.0.name`
 * is the first member sent, which may stand on line 3), rather than by the API's paths. Undefined when a
 * detail is about something else (the group's name): the refusal is then shown as it came.
 */
export function problemsByLine(details: readonly unknown[] | undefined, lines: readonly number[]): string[] | undefined {
  if (!details?.length) return undefined
  const problems: string[] = []
  for (const detail of details) {
    const { path, message } = (detail ?? {}) as { path?: unknown; message?: unknown }
    const index = typeof path === 'string' ? /^members\.(\d+)(?:\.|$)/.exec(path)?.[1] : undefined
    const line = index === undefined ? undefined : lines[Number(index)]
    if (line === undefined || typeof message !== 'string') return undefined
    problems.push(`line ${line}: ${message}`)
  }
  return problems
}

/** What the form says of a group it created: how its members sign in, or, with none yet, where they come from. */
export function createdMessage(group: { name: string; members: readonly unknown[] }): string {
  const n = group.members.length
  if (n === 0) return `Group ${group.name} created, with no members yet: add them on its page, or with a class list.`
  return `Group ${group.name} created with ${n} member${n === 1 ? '' : 's'}. Each signs in with their RM as the first password.`
}
