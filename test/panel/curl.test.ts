import { describe, expect, test } from 'bun:test'
import { $ } from 'bun'
import { CUSTOMER_TOKEN_HEADER, curlCommand, curlNote } from '../../panel/src/curl'

const entry = {
  method: 'POST',
  path: '/v1/products',
  query: 'dryRun=1',
  credential: 'secret' as const,
  requestHeaders: { 'content-type': 'application/json', 'x-api-key': '[redacted]', 'idempotency-key': 'k-1', 'sec-fetch-mode': 'cors', 'user-agent': 'shop/1.0' },
  requestBody: `{"name":"It's a mug"}`,
}

describe('the curl command of an inspected request', () => {
  test('names the key as $API_KEY, keeps the app headers, drops what curl sets itself, and quotes the body for bash', () => {
    expect(curlCommand('http://192.168.0.10:3000', entry)).toBe(
      [
        `curl -i -X POST 'http://192.168.0.10:3000/v1/products?dryRun=1'`,
        `-H "X-API-Key: $API_KEY"`,
        `-H 'content-type: application/json'`,
        `-H 'idempotency-key: k-1'`,
        `--data-raw '{"name":"It'\\''s a mug"}'`,
      ].join(' \\\n  '),
    )
  })

  test('bash reads the body back exactly as the app sent it, quotes and all', async () => {
    const body = `{"a":"it's","b":"$HOME \`id\` \\"x\\""}`
    const command = curlCommand('http://h', { ...entry, requestBody: body })
    const word = command.split('--data-raw ')[1]!
    expect(await $`bash -c ${`printf %s ${word}`}`.text()).toBe(body)
  })

  test('a customer call carries both variables; a student token its own', () => {
    expect(curlCommand('http://h', { ...entry, credential: 'customer', requestBody: null })).toContain(`-H "X-API-Key: $API_KEY" \\\n  -H "Authorization: Bearer $CUSTOMER_TOKEN"`)
    const student = curlCommand('http://h', { ...entry, credential: 'student', requestBody: null })
    expect(student).toContain('-H "Authorization: Bearer $STUDENT_TOKEN"')
    expect(student).not.toContain('API_KEY')
  })
})

describe('what the curl command repeats, and the fix beside it', () => {
  test('a key sent without its customer token is repeated without one; the fix adds $CUSTOMER_TOKEN', () => {
    const sent = { ...entry, method: 'GET', query: '', credential: 'publishable' as const, requestHeaders: { 'x-api-key': '[redacted]' }, requestBody: null }
    expect(curlCommand('http://h', sent)).toBe([`curl -i -X GET 'http://h/v1/products'`, `-H "X-API-Key: $API_KEY"`].join(' \\\n  '))
    expect(curlCommand('http://h', sent, [CUSTOMER_TOKEN_HEADER])).toBe(
      [`curl -i -X GET 'http://h/v1/products'`, `-H "X-API-Key: $API_KEY"`, `-H "Authorization: Bearer $CUSTOMER_TOKEN"`].join(' \\\n  '),
    )
  })

  test('a key sent with a token that is not the customer one repeats that token, and the fix replaces it', () => {
    const sent = { ...entry, credential: 'secret' as const, requestHeaders: { 'x-api-key': '[redacted]', authorization: '[redacted]' }, requestBody: null }
    expect(curlCommand('http://h', sent)).toContain(`-H "X-API-Key: $API_KEY" \\\n  -H "Authorization: Bearer $TOKEN"`)
    const fixed = curlCommand('http://h', sent, [CUSTOMER_TOKEN_HEADER])
    expect(fixed).toContain('-H "Authorization: Bearer $CUSTOMER_TOKEN"')
    expect(fixed).not.toContain('$TOKEN"')
  })
})

describe('the note under the curl command', () => {
  test("a successful call's JSON body needs its Content-Type back; a refused call's body was never read, or was let go; a kept body needs no note", () => {
    const refusedBeforeBody = { method: 'POST', status: 415, requestBody: null, bodiesDropped: false }
    expect(curlNote({ method: 'POST', status: 201, requestBody: null, bodiesDropped: false })).toBe(
      "The headers and body of a successful request are not kept: if it sent a JSON body, add it with -H 'Content-Type: application/json' --data-raw '{…}'.",
    )
    expect(curlNote(refusedBeforeBody)).toBe("It was refused before its body was read, so no body was kept: if it sent one, add it with --data-raw '…'.")
    expect(curlNote({ ...refusedBeforeBody, bodiesDropped: true })).toBe("Its body was let go to keep the newer failures' bodies: if it sent one, add it with --data-raw '…'.")
    expect(curlNote({ ...refusedBeforeBody, requestBody: '{"name":1}' })).toBe('')
    for (const method of ['GET', 'DELETE']) expect(curlNote({ method, status: 200, requestBody: null, bodiesDropped: false })).toBe('')
  })
})
