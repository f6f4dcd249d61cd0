import { isIP } from 'node:net';
import { blockedAddressReason } from './address-guard.js';

/**
 * What is wrong with a customer's URL before anything is sent to it: it must be absolute http(s),
 * without credentials (they would be logged) or a fragment, and, unless private networks are
 * allowed, must not name a blocked address literally. Names are checked on the addresses they
 * resolve to when a connection opens (see outbound-http.ts); `resolve` checks them now as well.
 */
export async function outboundUrlProblems(
  raw: string,
  options: { allowPrivateNetworks: boolean; resolve?: (hostname: string) => Promise<string[]> },
): Promise<string[]> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return ['must be an absolute http or https URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push('must use http or https');
  if (url.username || url.password) problems.push('must not contain credentials; send them in a header');
  if (url.hash) problems.push('must not contain a fragment (#…)');
  if (options.allowPrivateNetworks) return problems;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const reason = blockedAddressReason(host);
    if (reason) problems.push(`points at a ${reason} address (${host}), which Switchboard may not reach`);
    return problems;
  }
  // A name that does not resolve now may later: only what it resolves to is judged. Which address,
  // or which kind, is not said (see BlockedAddressError): the name's owner knows, others must not learn it.
  const addresses = options.resolve ? await options.resolve(host).catch(() => []) : [];
  if (addresses.some((address) => blockedAddressReason(address) !== undefined)) {
    problems.push(`its host "${host}" resolves to a private address, which Switchboard may not reach`);
  }
  return problems;
}
