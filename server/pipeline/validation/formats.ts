/**
 * The `format` constraint's checks, each as the Symfony constraint API Platform would run with its default
 * options, keyed by the JSON Schema format name the schema carries (schema.ts writes `url` as `uri`).
 */
import { isIPv4, isIPv6 } from 'node:net';
import type { Constraint } from './violations.js';

/** HTML's "valid e-mail address" with at least one dot in the domain: Symfony Email's default `html5` mode. */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

/** RFC 4122 hyphenated form, versions 1 to 8, the RFC variant: Symfony Uuid's strict default. */
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

const HOST_LABEL = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;
/** Top-level domains Symfony's Hostname refuses (RFC 2606). */
const RESERVED_TLDS = ['example', 'invalid', 'localhost', 'test'];

/** A host name with a top-level domain that is not reserved: Symfony Hostname with `requireTld` (its default). */
function isHostname(value: string): boolean {
  const labels = value.split('.');
  return (
    value.length <= 253 &&
    labels.length > 1 &&
    labels.every((l) => HOST_LABEL.test(l)) &&
    !RESERVED_TLDS.includes(labels[labels.length - 1])
  );
}

/** An absolute http or https URL with a host and nothing to escape: Symfony Url's default protocols. */
function isHttpUrl(value: string): boolean {
  const controlOrSpace = [...value].some((c) => c <= ' ' || c === '\u007f') || /\s/.test(value);
  if (!/^https?:\/\/[^/?#]/i.test(value) || controlOrSpace) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/** Per JSON Schema format: its check and the Symfony constraint its violation is. */
export const STRING_FORMAT_CHECKS: Record<string, { check: (value: string) => boolean; violation: Constraint }> = {
  email: { check: (v) => EMAIL.test(v), violation: 'Email' },
  uri: { check: isHttpUrl, violation: 'Url' },
  uuid: { check: (v) => UUID.test(v), violation: 'Uuid' },
  // Node accepts an IPv6 zone (`fe80::1%eth0`), PHP's filter_var (Symfony's Ip) does not.
  ipv4: { check: (v) => isIPv4(v), violation: 'Ip' },
  ipv6: { check: (v) => isIPv6(v) && !v.includes('%'), violation: 'Ip' },
  hostname: { check: isHostname, violation: 'Hostname' },
};
