import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'
import { networkInterfaces } from 'node:os'

/**
 * Which URLs a webhook may target (decisions §12): `https://` only, unless ALLOW_INSECURE_WEBHOOKS
 * also admits `http://` and loopback; link-local and metadata addresses, and this server itself,
 * never. Checked on the resolved addresses at registration and again before every attempt, so a
 * name that later resolves somewhere forbidden is caught.
 */
export interface TargetRules {
  allowInsecure: boolean
  /** The port this server listens on, and how it is reached from outside: a webhook must not call it. */
  listenPort: number
  publicUrl: string
}

/** Host name to addresses; swapped in tests to point a name at a forbidden address. */
export type Resolve = (host: string) => Promise<string[]>

export const systemResolve: Resolve = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)

/** A URL the rules refuse; `kind` tells a bad URL from a forbidden address and from a name that does not resolve. */
export class BadTarget extends Error {
  constructor(
    readonly kind: 'url' | 'address' | 'dns',
    message: string,
  ) {
    super(message)
  }
}

const never = new BlockList()
never.addSubnet('169.254.0.0', 16, 'ipv4') // link-local, and the cloud metadata service 169.254.169.254
never.addSubnet('fe80::', 10, 'ipv6')
never.addSubnet('0.0.0.0', 8, 'ipv4') // "this host": connecting to it reaches this machine
never.addAddress('::', 'ipv6')
never.addSubnet('224.0.0.0', 4, 'ipv4') // multicast and broadcast are no receivers
never.addAddress('255.255.255.255', 'ipv4')
never.addSubnet('ff00::', 8, 'ipv6')

const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4')
const bare = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1')
const portOf = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : 80))

/** Scheme and form of the URL, before any name is resolved. */
function parseTarget(raw: string, rules: TargetRules): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new BadTarget('url', `'${raw}' is not a URL; write it in full, e.g. https://my-app.example/webhooks`)
  }
  const schemes = rules.allowInsecure ? ['https:', 'http:'] : ['https:']
  if (!schemes.includes(url.protocol)) {
    throw new BadTarget(
      'url',
      rules.allowInsecure
        ? `the URL must start with https:// or http://, not ${url.protocol}//`
        : `the URL must start with https:// (this server was not started with --allow-insecure-webhooks, which would also admit http://)`,
    )
  }
  const publicUrl = rules.publicUrl ? new URL(rules.publicUrl) : undefined
  if (publicUrl && publicUrl.hostname === url.hostname && portOf(publicUrl) === portOf(url)) {
    throw new BadTarget('address', `${url.host} is this Storefront server itself; a webhook must point to your own app`)
  }
  return url
}

/** Why an address may not be sent to, or undefined when it may. */
function refusalOf(scoped: string, url: URL, rules: TargetRules): string | undefined {
  const address = scoped.replace(/%.*$/, '') // an IPv6 zone (fe80::1%eth0) is no part of the address
  const type = family(address)
  if (never.check(address, type)) return `${address} is a link-local, metadata or non-host address, which webhooks never target`
  const isLoopback = loopback.check(address, type)
  if (portOf(url) === rules.listenPort && (isLoopback || localAddresses().has(address))) {
    return `${address}:${rules.listenPort} is this Storefront server itself; a webhook must point to your own app`
  }
  if (isLoopback && !rules.allowInsecure) {
    return `${address} is a loopback address, allowed only when the server runs with --allow-insecure-webhooks (a personal copy on your own machine)`
  }
  return undefined
}

/** Checks the URL, resolves its host and checks every address it has; returns the parsed URL. */
export async function checkTarget(raw: string, rules: TargetRules, resolve: Resolve): Promise<URL> {
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
      throw new BadTarget('dns', `the host name '${host}' could not be resolved (${code}); check its spelling, or use the IP address`)
    }
    if (addresses.length === 0) throw new BadTarget('dns', `the host name '${host}' has no address`)
  }
  for (const address of addresses) {
    const refusal = refusalOf(address, url, rules)
    if (refusal) throw new BadTarget('address', host === address ? refusal : `${refusal} (the name ${host} resolves to it)`)
  }
  return url
}

function localAddresses(): Set<string> {
  return new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((a) => a?.address ?? ''),
  )
}
