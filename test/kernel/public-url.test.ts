import { describe, expect, test } from 'bun:test'
import { PublicUrl } from '../../src/kernel/http/url-base'

const request = (url: string) => new Request(url)

describe('the one source of the public address', () => {
  test('without --public-url: an answer gets its request origin, anything else the address guessed once listening', () => {
    const url = new PublicUrl(undefined, 'http://localhost:3000')
    expect(url.for(request('http://192.168.0.7:3000/v1/products'))).toBe('http://192.168.0.7:3000')
    expect(url.for()).toBe('http://localhost:3000')
    url.listening('http://10.0.0.5:41234')
    expect(url.for()).toBe('http://10.0.0.5:41234')
    expect(url.for(request('http://127.0.0.1:41234/health'))).toBe('http://127.0.0.1:41234')
  })

  test('with --public-url: every answer and everything else gets it, and listening does not change it', () => {
    const url = new PublicUrl('https://loja.escola.br')
    url.listening('http://10.0.0.5:41234')
    expect(url.for()).toBe('https://loja.escola.br')
    expect(url.for(request('http://192.168.0.7:3000/v1/products'))).toBe('https://loja.escola.br')
  })
})
