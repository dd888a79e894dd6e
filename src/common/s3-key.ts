import { badInput } from '../errors';

/** The prefix every object key of a tenant starts with. */
export const tenantS3Prefix = (tenantId: string) => `tenants/${tenantId}/`;

/**
 * The rules an S3 object key must meet, in the order they are checked. Only keys are stored, never
 * URLs or signed links: a stored URL goes stale and a stored signature leaks access.
 */
const rules: Array<{ rule: string; breaks: (key: string, tenantId: string) => boolean; message: (tenantId: string) => string }> = [
  { rule: 'empty', breaks: (k) => k.length === 0, message: () => 'must not be empty' },
  { rule: 'too_long', breaks: (k) => Buffer.byteLength(k) > 1024, message: () => 'must be at most 1024 bytes' },
  {
    rule: 'url',
    breaks: (k) => /^[a-z][a-z0-9+.-]*:\/\//i.test(k) || k.startsWith('//'),
    message: () => 'must be an S3 object key, not a URL (http://, https://, s3:// are refused)',
  },
  {
    rule: 'presigned',
    breaks: (k) => /x-amz-/i.test(k),
    message: () => 'must not carry a presigned signature (an X-Amz- parameter); store the plain key',
  },
  { rule: 'leading_slash', breaks: (k) => k.startsWith('/'), message: () => 'must not start with "/"' },
  { rule: 'dot_dot', breaks: (k) => k.includes('..'), message: () => 'must not contain ".."' },
  {
    rule: 'characters',
    // Control characters and backslashes have no place in a key and confuse path handling.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this rule refuses.
    breaks: (k) => /[\u0000-\u001f\u007f\\]/.test(k),
    message: () => 'must not contain control characters or backslashes',
  },
  {
    rule: 'tenant_prefix',
    breaks: (k, t) => !k.startsWith(tenantS3Prefix(t)),
    message: (t) => `must begin with the tenant's prefix "${tenantS3Prefix(t)}"`,
  },
];

/** The first rule `key` breaks for `tenantId`, or null when the key is acceptable. Pure. */
export function s3KeyViolation(key: string, tenantId: string): { rule: string; message: string } | null {
  for (const { rule, breaks, message } of rules) if (breaks(key, tenantId)) return { rule, message: message(tenantId) };
  return null;
}

/** Returns `key` when it is a valid object key of `tenantId`; throws BAD_USER_INPUT naming the rule otherwise. */
export function validateS3Key(key: string, tenantId: string, field: string): string {
  const violation = s3KeyViolation(key, tenantId);
  if (violation) {
    const err = badInput(`${field} ${violation.message}; got "${key.slice(0, 200)}".`, field);
    err.extensions.rule = violation.rule;
    throw err;
  }
  return key;
}

/**
 * Makes a file name safe as the last segment of an object key: the base name only, accents
 * dropped, anything but letters, digits, `.`, `_` and `-` replaced, at most 100 characters.
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const safe = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/-+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(-100);
  return safe.replace(/\.{2,}/g, '.') || 'file';
}
