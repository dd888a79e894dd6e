import { createHash } from 'node:crypto';
import { CompactEncrypt, compactDecrypt } from 'jose';
import { badInput } from '../errors';
import { isRecord } from '../guards';

/** BAD_USER_INPUT for a cursor that is not one this server made for a page (`argument` names the argument that carried it). */
export const invalidCursor = (argument: string) =>
  badInput(`The cursor is not valid: pass a cursor of a previous page unchanged as ${argument}.`, argument);

/**
 * Opaque page cursors. A cursor is the position in one query, encrypted and authenticated with a
 * server key (JWE, dir + A256GCM), and bound to the tenant and to a fingerprint of the query it
 * came from, so it can be neither read, forged, nor replayed by another tenant or another query.
 */
export class CursorCodec {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = createHash('sha256').update(`cursor:${secret}`).digest();
  }

  /** Encodes the position `key` of query `queryId` for `tenantId`. */
  async encode(tenantId: string, queryId: string, key: Record<string, unknown>): Promise<string> {
    const payload = new TextEncoder().encode(JSON.stringify({ t: tenantId, q: queryId, k: key }));
    return new CompactEncrypt(payload).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(this.key);
  }

  /**
   * Decodes a cursor made by `encode` for the same tenant and query. Throws BAD_USER_INPUT when the
   * cursor is malformed, was not made by this server, or belongs to another tenant or query
   * (`argument` names the argument that carried it).
   */
  async decode(cursor: string, tenantId: string, queryId: string, argument = 'after'): Promise<Record<string, unknown>> {
    let parsed: unknown;
    try {
      const { plaintext } = await compactDecrypt(cursor, this.key);
      parsed = JSON.parse(new TextDecoder().decode(plaintext));
    } catch {
      throw invalidCursor(argument);
    }
    if (!isRecord(parsed) || parsed.t !== tenantId || parsed.q !== queryId || !isRecord(parsed.k)) {
      throw badInput(`The cursor belongs to another list: pass as ${argument} a cursor of a previous page of this same list.`, argument);
    }
    return parsed.k;
  }
}
