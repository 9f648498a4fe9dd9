/** What the address needs of the server: Bun's has it. */
export interface AddressSource {
  requestIP(request: Request): { address: string } | null
  /** Closes the request's connection once it has been idle this many seconds (Bun's; a stand-in in tests may lack it). */
  timeout?(request: Request, seconds: number): void
}

/**
 * The client's address as the server sees it: the peer of the connection. A forwarded-for header is
 * never believed, since any client can write one. 'local' when the app is called in-process
 * (`app.handle`, with no server). What is limited or counted per address (shop-front buckets, logins,
 * the inspector's sources) takes this, so an IPv6 client counts by its /64 network (addressGroup).
 */
export const clientAddress = (server: AddressSource | null | undefined, request: Request) => {
  const address = server?.requestIP(request)?.address
  return address ? addressGroup(address) : 'local'
}

/**
 * An IPv4 address as it is (an IPv4-mapped IPv6 one as IPv4); an IPv6 address as its /64 network
 * (`2001:db8:0:1::/64`): one machine commonly holds a whole /64 and may pick a new address in it for
 * every connection, so a limit per IPv6 address would be no limit.
 */
export function addressGroup(address: string): string {
  if (!address.includes(':')) return address
  const bare = address.split('%')[0]!.toLowerCase()
  const mapped = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)
  if (mapped) return mapped[1]!
  if (bare === '::1') return bare
  const [head, tail] = bare.split('::') as [string, string | undefined]
  const first = head ? head.split(':') : []
  const last = tail ? tail.split(':') : []
  const groups = tail === undefined ? first : [...first, ...Array<string>(Math.max(0, 8 - first.length - last.length)).fill('0'), ...last]
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`
}
