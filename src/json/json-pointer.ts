/**
 * JSON Pointer tokens (RFC 6901): the escaping the path updates and their rebuilder share.
 * Internal.
 *
 * @module
 */

/** Escape one reference token: `~` → `~0`, `/` → `~1` (RFC 6901 §3). */
export function escapeToken(token: string): string {
  if (token.indexOf('~') === -1 && token.indexOf('/') === -1) return token;
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * Unescape one reference token; `undefined` for a `~` not followed by `0` or `1`. `~1` is
 * decoded before `~0`, so `~01` is `~1` and not `/` (RFC 6901 §4).
 */
export function unescapeToken(token: string): string | undefined {
  if (token.indexOf('~') === -1) return token;
  if (/~(?![01])/.test(token)) return undefined;
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
