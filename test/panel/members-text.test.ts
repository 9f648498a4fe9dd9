import { describe, expect, test } from 'bun:test'
import { createdMessage, parseMembers, problemsByLine } from '../../panel/src/teacher/members-text'

describe("the members box's problems, said by line", () => {
  test('the server refusing the second member sent names the line that member stood on, past a blank line', () => {
    const { members, lines } = parseMembers('12345,Ana\n\n23456,Bruno\x1b[31m')
    expect(members.map((m) => m.rm)).toEqual(['12345', '23456'])
    expect(lines).toEqual([1, 3])
    const details = [
      { path: 'members.1.name', message: 'name holds a control character (U+001B at position 5)' },
      { path: 'members.0', message: 'a member is {rm, name}' },
    ]
    expect(problemsByLine(details, lines)).toEqual(['line 3: name holds a control character (U+001B at position 5)', 'line 1: a member is {rm, name}'])
  })

  test("a refusal about anything else, or of a member not sent, is left as the server said it", () => {
    expect(problemsByLine([{ path: 'name', message: 'name has at most 80 characters' }], [1])).toBeUndefined()
    expect(problemsByLine([{ path: 'members.4.rm', message: 'too long' }], [1, 2])).toBeUndefined()
    expect(problemsByLine([{ path: 'members', message: 'at most 200 members' }], [1])).toBeUndefined()
    expect(problemsByLine([], [1])).toBeUndefined()
    expect(problemsByLine(undefined, [1])).toBeUndefined()
  })
})

describe('what the form says of a group it created', () => {
  test('with members, how they sign in; with none, where they come from', () => {
    const member = { rm: '1', name: 'Ana' }
    expect(createdMessage({ name: 'Azul', members: [member, member] })).toBe('Group Azul created with 2 members. Each signs in with their RM as the first password.')
    expect(createdMessage({ name: 'Azul', members: [member] })).toBe('Group Azul created with 1 member. Each signs in with their RM as the first password.')
    expect(createdMessage({ name: 'Azul', members: [] })).toBe('Group Azul created, with no members yet: add them on its page, or with a class list.')
  })
})
