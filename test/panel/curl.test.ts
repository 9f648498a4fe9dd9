import { describe, expect, test } from 'bun:test'
import { $ } from 'bun'
import { curlCommand } from '../../panel/src/curl'

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
