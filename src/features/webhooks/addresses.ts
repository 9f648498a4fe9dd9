import { BlockList, isIP } from 'node:net'

/**
 * What kind of host an IP address is, for the webhook target rules (targets.ts). An IPv6 address
 * can carry an IPv4 address inside it (IPv4-mapped, NAT64, 6to4, ...), and a network that routes
 * that form reaches the IPv4 host: such an address is judged by the IPv4 address it carries too.
 */
export type AddressKind = 'never' | 'loopback' | 'lan' | 'public'

const never = new BlockList()
never.addSubnet('169.254.0.0', 16, 'ipv4') // link-local, and the cloud metadata service 169.254.169.254
never.addSubnet('fe80::', 10, 'ipv6')
never.addSubnet('0.0.0.0', 8, 'ipv4') // "this host": connecting to it reaches this machine
never.addAddress('::', 'ipv6')
never.addSubnet('224.0.0.0', 4, 'ipv4') // multicast and broadcast are no receivers
never.addAddress('255.255.255.255', 'ipv4')
never.addSubnet('ff00::', 8, 'ipv6')
// Cloud metadata services outside link-local: Alibaba Cloud, Azure's platform address, AWS over IPv6.
never.addAddress('100.100.100.200', 'ipv4')
never.addAddress('168.63.129.16', 'ipv4')
never.addAddress('fd00:ec2::254', 'ipv6')

const loopback = new BlockList()
loopback.addSubnet('127.0.0.0', 8, 'ipv4')
loopback.addAddress('::1', 'ipv6')

/**
 * The LAN: private addresses, which the internet does not route (where http:// may go with
 * --allow-insecure-webhooks). The shared address space 100.64.0.0/10 is one too: a provider's or an
 * overlay network's (Tailscale), never the internet's.
 */
const lan = new BlockList()
lan.addSubnet('10.0.0.0', 8, 'ipv4')
lan.addSubnet('172.16.0.0', 12, 'ipv4')
lan.addSubnet('192.168.0.0', 16, 'ipv4')
lan.addSubnet('100.64.0.0', 10, 'ipv4')
lan.addSubnet('fc00::', 7, 'ipv6') // unique local addresses

/**
 * Local-use NAT64 places the IPv4 address at one of four offsets, chosen by the network's prefix
 * length, which this server cannot know: the IPv4 address such an address stands for cannot be checked.
 */
const localUseNat64 = new BlockList()
localUseNat64.addSubnet('64:ff9b:1::', 48, 'ipv6')
export const isLocalUseNat64 = (address: string) => isIP(address) === 6 && localUseNat64.check(address, 'ipv6')

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4')

/** The kind of one address as written (an IPv4 address carried inside an IPv6 one is not looked at here). */
export function kindOf(address: string): AddressKind {
  const type = family(address)
  if (never.check(address, type)) return 'never'
  if (loopback.check(address, type)) return 'loopback'
  return lan.check(address, type) ? 'lan' : 'public'
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 part converted). */
function groupsOf(address: string): number[] {
  let text = address
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const parse = (part: string | undefined) => (part ? part.split(':').map((h) => parseInt(h, 16)) : [])
  const [head, tail] = text.split('::')
  if (tail === undefined) return parse(head)
  const [h, t] = [parse(head), parse(tail)]
  return [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t]
}

const octets = (...bytes: number[]) => bytes.map((b) => b & 0xff).join('.')
const fromGroups = (hi: number, lo: number) => octets(hi >> 8, hi, lo >> 8, lo)

/** The IPv4 addresses an IPv6 address carries, each with the name of its form. */
export function embeddedIPv4(address: string): { ipv4: string; form: string }[] {
  if (isIP(address) !== 6) return []
  const g = groupsOf(address)
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number]
  if (zeros(0, 5) && g5 === 0xffff) return [{ ipv4: fromGroups(g6, g7), form: 'IPv4-mapped' }]
  if (zeros(0, 4) && g4 === 0xffff && g5 === 0) return [{ ipv4: fromGroups(g6, g7), form: 'IPv4-translated' }]
  // ::a.b.c.d with a first octet of 0 is not an IPv4 address (and keeps :: and ::1 what they are).
  if (zeros(0, 6) && g6 >> 8 !== 0) return [{ ipv4: fromGroups(g6, g7), form: 'IPv4-compatible' }]
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return [{ ipv4: fromGroups(g6, g7), form: 'NAT64' }]
  if (g0 === 0x2002) return [{ ipv4: fromGroups(g1, g2), form: '6to4' }]
  // Teredo: the server's address in clear, the client's (where the tunnel leads) with every bit flipped.
  if (g0 === 0x2001 && g1 === 0) return [{ ipv4: fromGroups(~g6, ~g7), form: 'Teredo' }, { ipv4: fromGroups(g2, g3), form: 'Teredo server' }]
  return []
}
