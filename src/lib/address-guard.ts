/**
 * Decides which IP addresses outbound requests may reach. Customers choose the URLs Switchboard
 * calls, so without this a tool URL could read the cloud metadata service or an internal admin
 * port (SSRF). The guard judges addresses, never names: a name can resolve anywhere.
 */

interface Range {
  bytes: Uint8Array;
  bits: number;
  reason: string;
}

function range(cidr: string, reason: string): Range {
  const [address = '', bits = ''] = cidr.split('/');
  const bytes = parseIPv4(address) ?? parseIPv6(address);
  if (!bytes) throw new Error(`Bad range ${cidr}`);
  return { bytes, bits: Number(bits), reason };
}

// First match wins, so a specific entry goes before the wider range that contains it.
const IPV4_RANGES: Range[] = [
  range('169.254.169.254/32', 'cloud metadata'),
  range('0.0.0.0/8', 'unspecified'),
  range('10.0.0.0/8', 'private network'),
  range('100.64.0.0/10', 'carrier-grade NAT'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private network'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'documentation'),
  range('192.168.0.0/16', 'private network'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'documentation'),
  range('203.0.113.0/24', 'documentation'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved'),
];

const IPV6_RANGES: Range[] = [
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('fd00:ec2::254/128', 'cloud metadata'),
  range('fc00::/7', 'private network'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'reserved'),
  range('ff00::/8', 'multicast'),
  range('2001:db8::/32', 'documentation'),
  range('3fff::/20', 'documentation'),
  range('100::/64', 'reserved'),
];

// Prefixes whose addresses carry an IPv4 address that the packet ends up at, as [prefix, offset of the IPv4 bytes].
const IPV4_CARRIERS: [Range, number][] = [
  [range('::ffff:0:0/96', 'IPv4-mapped'), 12],
  [range('64:ff9b::/96', 'NAT64'), 12],
  [range('2002::/16', '6to4'), 2],
  // Checked after ::/128 and ::1/128, which share this prefix but mean something else.
  [range('::/96', 'IPv4-compatible'), 12],
];

function inRange(bytes: Uint8Array, { bytes: prefix, bits }: Range): boolean {
  if (bytes.length !== prefix.length) return false;
  const whole = bits >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== prefix[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((prefix[whole] ?? 0) & mask);
}

// Only the canonical dotted quad: forms like 0x7f.1 or 0177.0.0.1 mean different addresses to different parsers.
function parseIPv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? Uint8Array.from(bytes) : undefined;
}

function parseIPv6(text: string): Uint8Array | undefined {
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = parseIPv4(text.slice(lastColon + 1));
    if (!v4) return undefined;
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/i.test(group))) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function ipv4Reason(bytes: Uint8Array): string | undefined {
  return IPV4_RANGES.find((r) => inRange(bytes, r))?.reason;
}

function ipv6Reason(bytes: Uint8Array): string | undefined {
  const special = IPV6_RANGES.find((r) => inRange(bytes, r));
  if (special) return special.reason;
  const carrier = IPV4_CARRIERS.find(([r]) => inRange(bytes, r));
  if (carrier) return ipv4Reason(bytes.subarray(carrier[1], carrier[1] + 4));
  // Everything outside 2000::/3 is unassigned or special-purpose; nothing public lives there.
  return (bytes[0]! & 0xe0) === 0x20 ? undefined : 'reserved';
}

/**
 * Why `ip` must not be reached, or `undefined` when it is a public unicast address.
 * Accepts IPv4 dotted quads and IPv6 text (with `::`, an embedded dotted quad, `[brackets]` or a
 * `%zone`). IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) are judged by
 * that address. Text that is not an IP address is refused as "not an IP address".
 */
export function blockedAddressReason(ip: string): string | undefined {
  const v4 = parseIPv4(ip);
  if (v4) return ipv4Reason(v4);
  let text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const v6 = parseIPv6(text);
  return v6 ? ipv6Reason(v6) : 'not an IP address';
}

/**
 * A connection refused because the address it would reach is not public. Its message is shown to
 * the organization (a tool's test, "Send test", a delivery attempt, an agent's provider sync): for
 * a name it says only that the name resolves to a private address, never which one nor its range,
 * or it would tell anyone who can save a URL what our internal names resolve to (a DNS oracle). An
 * address the user typed is named with its range: that tells them nothing new.
 */
export class BlockedAddressError extends Error {
  override name = 'BlockedAddressError';
  /**
   * @param address the IP address that was refused (on the error for the operator; not in the message for a name)
   * @param reason what {@link blockedAddressReason} said about it
   * @param hostname the name that resolved to `address`, when it was not an IP address itself
   */
  constructor(
    readonly address: string,
    readonly reason: string,
    readonly hostname?: string,
  ) {
    const refused =
      hostname && hostname !== address
        ? `The host "${hostname}" resolves to a private address, which is not allowed`
        : `The address ${address} is not allowed (${reason})`;
    super(`${refused}; set SWITCHBOARD_ALLOW_PRIVATE_NETWORKS=true to allow private networks`);
  }
}
