import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { networkInterfaces } from 'node:os'
import { embeddedIPv4, isLocalUseNat64, kindOf, type AddressKind } from './addresses'

/**
 * Which URLs a webhook may target: `https://` anywhere; `http://` to the LAN (private addresses) with
 * --allow-insecure-webhooks, never to the internet; loopback (this machine) only with --allow-loopback-webhooks;
 * link-local, metadata and non-host addresses, and this server itself, never. Checked on the
 * resolved addresses at registration and again before every attempt, which then connects to an
 * address that was checked (send.ts): a name cannot pass the check and then resolve elsewhere.
 */
export interface TargetRules {
  /** `http://` to LAN addresses (loopback is allowLoopback's). */
  allowInsecure: boolean
  /** Loopback addresses, over `http://` or `https://`. */
  allowLoopback: boolean
  /** The port this server listens on, and how it is reached from outside: a webhook must not call it. */
  listenPort: number
  publicUrl: string
}

/** Host name to addresses; swapped in tests to point a name at a chosen address. */
export type Resolve = (host: string) => Promise<string[]>

export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)

/** A URL that passed the rules, with the addresses that were checked, in the order to try them. */
export interface Target {
  url: URL
  addresses: string[]
}

/** A URL the rules refuse; `kind` tells a bad URL from a forbidden address and from a name that does not resolve. */
export class BadTarget extends Error {
  constructor(
    readonly kind: 'url' | 'address' | 'dns',
    message: string,
  ) {
    super(message)
  }
}

const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1')
const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80))

const HTTPS_ONLY = 'the URL must start with https:// (this server was not started with --allow-insecure-webhooks, which would also admit http:// on the LAN)'

/** Scheme and form of the URL, before any name is resolved. */
function parseTarget(raw: string, rules: TargetRules): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new BadTarget('url', `'${raw}' is not a URL; write it in full, e.g. https://my-app.example/webhooks`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new BadTarget('url', rules.allowInsecure || rules.allowLoopback ? `the URL must start with https:// or http://, not ${url.protocol}//` : HTTPS_ONLY)
  }
  // With neither switch nothing takes http://; with loopback alone, only loopback does (checked per address).
  if (url.protocol === 'http:' && !rules.allowInsecure && !rules.allowLoopback) throw new BadTarget('url', HTTPS_ONLY)
  const publicUrl = rules.publicUrl ? new URL(rules.publicUrl) : undefined
  if (publicUrl && publicUrl.hostname === url.hostname && portOf(publicUrl) === portOf(url)) {
    throw new BadTarget('address', `${url.host} is this Storefront server itself; a webhook must point to your own app`)
  }
  return url
}

/**
 * Why one address (as written, or as carried inside an IPv6 address) may not be sent to, or undefined.
 * `kind` is the address's own unless the caller judged it by the addresses it carries.
 */
function refusalOfOne(address: string, url: URL, rules: TargetRules, kind: AddressKind = kindOf(address)): string | undefined {
  if (kind === 'never') return 'is a link-local, metadata or non-host address, which webhooks never target'
  if (portOf(url) === rules.listenPort && (kind === 'loopback' || localAddresses().has(address))) {
    return `is this Storefront server itself (port ${rules.listenPort}); a webhook must point to your own app`
  }
  if (kind === 'loopback' && !rules.allowLoopback) {
    return 'is a loopback address (this machine), allowed only when the server runs with --allow-loopback-webhooks (on by default for a personal copy listening on 127.0.0.1)'
  }
  if (url.protocol === 'http:' && kind !== 'loopback') {
    if (!rules.allowInsecure) return 'is not loopback, and this server allows http:// only to loopback (it was not started with --allow-insecure-webhooks); use https://'
    if (kind === 'public') return 'is not a LAN address (10.x, 172.16-31.x, 192.168.x, 100.64-127.x or IPv6 fc00::/7), and http:// goes only to the LAN, even with --allow-insecure-webhooks; use https://'
  }
  return undefined
}

/** Why an address may not be sent to, or undefined when it may: judged as written and by every IPv4 address it carries. */
function refusalOf(scoped: string, url: URL, rules: TargetRules): string | undefined {
  const address = scoped.replace(/%.*$/, '') // an IPv6 zone (fe80::1%eth0) is no part of the address
  if (isLocalUseNat64(address)) {
    return `${address} is a local-use NAT64 address (64:ff9b:1::/48), whose IPv4 address cannot be checked, which webhooks never target`
  }
  const carries = embeddedIPv4(address)
  for (const { ipv4, form } of carries) {
    const carried = refusalOfOne(ipv4, url, rules)
    if (carried) return `${address} is ${ipv4} written as IPv6 (${form}), which ${carried}`
  }
  // An IPv6 form of LAN addresses (::ffff:10.0.0.7) is on the LAN: the network routes it to them.
  const kind = kindOf(address)
  const own = refusalOfOne(address, url, rules, kind === 'public' && carries.length > 0 && carries.every((c) => kindOf(c.ipv4) === 'lan') ? 'lan' : kind)
  return own && `${address} ${own}`
}

/** Checks the URL, resolves its host and checks every address it has. */
export async function checkTarget(raw: string, rules: TargetRules, resolve: Resolve): Promise<Target> {
  const url = parseTarget(raw, rules)
  const host = bare(url.hostname)
  let addresses: string[]
  if (isIP(host)) {
    addresses = [host]
  } else {
    try {
      addresses = await resolve(host)
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message
      // Where http:// goes to loopback only, a name not resolved is no address known to be loopback:
      // refused now rather than taken and never delivered (a public name that this machine cannot resolve).
      if (url.protocol === 'http:' && !rules.allowInsecure) {
        throw new BadTarget('address', `the host name '${host}' could not be resolved (${code}), and this server takes http:// only to loopback addresses (it was not started with --allow-insecure-webhooks): use https://, or http://127.0.0.1:<port> for an app on this machine`)
      }
      throw new BadTarget('dns', `the host name '${host}' could not be resolved (${code}); check its spelling, or use the IP address`)
    }
    if (addresses.length === 0) throw new BadTarget('dns', `the host name '${host}' has no address`)
  }
  for (const address of addresses) {
    const refusal = refusalOf(address, url, rules)
    if (refusal) throw new BadTarget('address', host === address ? refusal : `${refusal} (the name ${host} resolves to it)`)
  }
  return { url, addresses: addresses.map((a) => a.replace(/%.*$/, '')) }
}

function localAddresses(): Set<string> {
  return new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((a) => a?.address ?? ''),
  )
}
