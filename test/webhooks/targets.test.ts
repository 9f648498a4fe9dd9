import { describe, expect, test } from 'bun:test'
import { embeddedIPv4 } from '../../src/features/webhooks/addresses'
import { BadTarget, checkTarget, type Resolve, type TargetRules } from '../../src/features/webhooks/targets'

const STRICT: TargetRules = { allowInsecure: false, allowLoopback: false, listenPort: 3000, publicUrl: 'http://10.0.0.1:3000' }
const OPEN: TargetRules = { ...STRICT, allowInsecure: true, allowLoopback: true }
const noNames: Resolve = async (host) => {
  throw Object.assign(new Error(`no ${host}`), { code: 'ENOTFOUND' })
}

/** The refusal of `url` under `rules`, or 'accepted'. */
async function verdict(url: string, rules: TargetRules, resolve: Resolve = noNames): Promise<string> {
  try {
    await checkTarget(url, rules, resolve)
    return 'accepted'
  } catch (e) {
    if (!(e instanceof BadTarget)) throw e
    return `${e.kind}: ${e.message}`
  }
}

describe('webhook target checks', () => {
  test('every IPv6 form that carries a refused IPv4 address, and the cloud metadata addresses, are refused even with both switches on', async () => {
    const metadata = '169.254.169.254'
    const forms: [string, string][] = [
      ['[::a9fe:a9fe]', 'IPv4-compatible'],
      ['[::169.254.169.254]', 'IPv4-compatible'],
      ['[::ffff:169.254.169.254]', 'IPv4-mapped'],
      ['[::ffff:0:a9fe:a9fe]', 'IPv4-translated'],
      ['[64:ff9b::a9fe:a9fe]', 'NAT64'],
      ['[64:ff9b::169.254.169.254]', 'NAT64'],
      ['[2002:a9fe:a9fe::]', '6to4'],
      ['[2002:a9fe:a9fe:1234::1]', '6to4'],
      ['[2001:0:4136:e378:8000:63bf:5601:5601]', 'Teredo'],
      ['[2001:0:a9fe:a9fe::1]', 'Teredo server'],
    ]
    for (const [host, form] of forms) {
      const shown = new URL(`https://${host}/`).hostname.slice(1, -1)
      expect(await verdict(`https://${host}/x`, OPEN)).toBe(`address: ${shown} is ${metadata} written as IPv6 (${form}), which is a link-local, metadata or non-host address, which webhooks never target`)
    }
    // Local-use NAT64 puts the IPv4 address where the network's prefix length says (here /48, /56, /64, /96): unknowable, so all refused.
    for (const host of ['64:ff9b:1:a9fe:a9:fe00::', '64:ff9b:1:a9:fe:a9fe::', '64:ff9b:1:0:a9:fea9:fe00:0', '64:ff9b:1::a9fe:a9fe', '64:ff9b:1:a00:7::']) {
      expect(await verdict(`https://[${host}]/x`, OPEN)).toBe(`address: ${host} is a local-use NAT64 address (64:ff9b:1::/48), whose IPv4 address cannot be checked, which webhooks never target`)
    }
    for (const address of ['100.100.100.200', '[fd00:ec2::254]', '168.63.129.16', '[::ffff:100.100.100.200]']) {
      expect(await verdict(`http://${address}/latest/meta-data`, OPEN)).toMatch(/^address: .* (is|which is) a link-local, metadata or non-host address, which webhooks never target$/)
    }
  })

  test('without --allow-loopback-webhooks every form of a loopback address is refused', async () => {
    const loopback = 'is a loopback address (this machine), allowed only when the server runs with --allow-loopback-webhooks (on by default for a personal copy listening on 127.0.0.1)'
    const rules = { ...STRICT, allowInsecure: true }
    expect(await verdict('https://[::127.0.0.1]/x', rules)).toBe(`address: ::7f00:1 is 127.0.0.1 written as IPv6 (IPv4-compatible), which ${loopback}`)
    expect(await verdict('https://[::ffff:127.0.0.2]/x', rules)).toBe(`address: ::ffff:7f00:2 is 127.0.0.2 written as IPv6 (IPv4-mapped), which ${loopback}`)
    expect(await verdict('https://[64:ff9b::7f00:1]/x', rules)).toBe(`address: 64:ff9b::7f00:1 is 127.0.0.1 written as IPv6 (NAT64), which ${loopback}`)
    expect(await verdict('https://[2002:7f00:1::]/x', rules)).toBe(`address: 2002:7f00:1:: is 127.0.0.1 written as IPv6 (6to4), which ${loopback}`)
    expect(await verdict('http://127.1.2.3:8080/x', rules)).toBe(`address: 127.1.2.3 ${loopback}`)
    expect(await verdict('http://[::1]:8080/x', rules)).toBe(`address: ::1 ${loopback}`)
    expect(await verdict('http://localhost:8080/x', rules, async () => ['::1', '127.0.0.1'])).toBe(`address: ::1 ${loopback} (the name localhost resolves to it)`)
    // With the switch they are this machine, allowed.
    expect(await verdict('http://[::ffff:127.0.0.1]:8080/x', OPEN)).toBe('accepted')
  })

  test('a form carrying a LAN address is that LAN address; :: and ::1 keep their own meaning', async () => {
    expect(await verdict('https://[::ffff:192.168.1.20]/x', STRICT)).toBe('accepted')
    expect(await verdict('https://[64:ff9b::a00:7]/x', STRICT)).toBe('accepted')
    expect(await verdict('https://[2002:a00:7::1]/x', STRICT)).toBe('accepted')
    expect(await verdict('https://[fd12:3456::7]/x', STRICT)).toBe('accepted') // a unique local (LAN) address
    expect(await verdict('https://[::]/x', OPEN)).toBe('address: :: is a link-local, metadata or non-host address, which webhooks never target')
    expect(await verdict('https://[::1]:8080/x', OPEN)).toBe('accepted')
    expect(embeddedIPv4('::1')).toEqual([])
    expect(embeddedIPv4('2001:db8::1')).toEqual([])
    expect(embeddedIPv4('10.0.0.7')).toEqual([])
  })

  test('the check answers with the addresses it checked, in the resolver\'s order, for the send to connect to', async () => {
    const target = await checkTarget('https://shop.lab.test:8443/hook', STRICT, async () => ['10.0.0.9', 'fd12::9'])
    expect(target.url.href).toBe('https://shop.lab.test:8443/hook')
    expect(target.addresses).toEqual(['10.0.0.9', 'fd12::9'])
    expect(await verdict('https://gone.lab.test/x', STRICT)).toBe("dns: the host name 'gone.lab.test' could not be resolved (ENOTFOUND); check its spelling, or use the IP address")
  })

  test('where http:// goes to loopback only, an http:// name that does not resolve is refused: it is no address known to be loopback', async () => {
    const loopbackOnly: TargetRules = { ...STRICT, allowLoopback: true }
    expect(await verdict('http://example.com/hook', loopbackOnly)).toBe(
      "address: the host name 'example.com' could not be resolved (ENOTFOUND), and this server takes http:// only to loopback addresses (it was not started with --allow-insecure-webhooks): use https://, or http://127.0.0.1:<port> for an app on this machine",
    )
    // https:// may still name a host that resolves later, and so may http:// where the LAN takes it.
    expect(await verdict('https://example.com/hook', loopbackOnly)).toStartWith("dns: the host name 'example.com' could not be resolved")
    expect(await verdict('http://shop.lab.test/hook', OPEN)).toStartWith("dns: the host name 'shop.lab.test' could not be resolved")
    expect(await verdict('http://localhost:8080/hook', loopbackOnly, async () => ['127.0.0.1'])).toBe('accepted')
  })
})
