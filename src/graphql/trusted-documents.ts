import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GraphQLError } from 'graphql';
import { errorMessage, isRecord } from '../guards';

/** What a request says about its document, over HTTP or WebSocket. */
export interface DocumentRequest {
  query?: unknown;
  /** The GraphQL-over-HTTP draft's persisted document id (`sha256:<hex>`). */
  documentId?: unknown;
  /** Apollo's persisted-query extension: `{ persistedQuery: { version: 1, sha256Hash } }`. */
  extensions?: unknown;
}

/** The document to run (`query` undefined when the request's own text stands), or why it is refused. */
export type Resolution = { query?: string; error?: undefined } | { query?: undefined; error: GraphQLError };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Trusted documents: the manifest `npm run codegen` writes (src/client/gql/persisted-documents.json,
 * `sha256:<hex>` → document), so that a client can send an operation's hash instead of its text
 * and, when `only` is set, the server runs nothing else. HTTP and WebSocket ask the same instance.
 */
export class TrustedDocuments {
  private constructor(
    private readonly byHash: ReadonlyMap<string, string>,
    /** True: operations outside the manifest are refused. */
    readonly only: boolean,
  ) {}

  /** No manifest: every request's own text stands (and Apollo's automatic persisted queries work as usual). */
  static none(): TrustedDocuments {
    return new TrustedDocuments(new Map(), false);
  }

  /** Reads the manifest at `path`. Throws, naming the file, when it cannot be read or is not one. */
  static fromFile(path: string, only: boolean): TrustedDocuments {
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new Error(`PERSISTED_DOCUMENTS: cannot read the manifest ${path}: ${errorMessage(error)}`);
    }
    if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) {
      throw new Error(`PERSISTED_DOCUMENTS: ${path} is not a manifest of hash → document.`);
    }
    const byHash = new Map<string, string>();
    for (const [key, text] of Object.entries(manifest)) {
      if (typeof text !== 'string') throw new Error(`PERSISTED_DOCUMENTS: ${path} has a non-text document for ${key}.`);
      byHash.set(key.replace(/^sha256:/, ''), text);
    }
    return new TrustedDocuments(byHash, only);
  }

  get size(): number {
    return this.byHash.size;
  }

  /**
   * The document `request` runs. A hash the manifest holds gives its document; without a
   * manifest, or when the manifest is not enforced, anything else stands as sent. When it is
   * enforced, an unknown hash is PERSISTED_QUERY_NOT_FOUND and a text that is not in the manifest
   * TRUSTED_DOCUMENT_REQUIRED (both HTTP 400): nothing outside the manifest runs.
   */
  resolve(request: DocumentRequest): Resolution {
    const hash = hashOf(request);
    if (hash !== undefined) {
      const text = this.byHash.get(hash);
      if (text !== undefined) return { query: text };
      if (!this.only) return {};
      return { error: refusal('PERSISTED_QUERY_NOT_FOUND', `No trusted document has the hash ${hash}.`) };
    }
    if (!this.only) return {};
    if (typeof request.query === 'string' && this.byHash.has(sha256(request.query))) return {};
    return {
      error: refusal(
        'TRUSTED_DOCUMENT_REQUIRED',
        'This server runs only its trusted documents: send the operation’s hash (extensions.persistedQuery.sha256Hash or documentId) from the manifest npm run codegen writes.',
      ),
    };
  }
}

/** The hash a request names its document by, if any (hex, without the `sha256:` prefix). */
function hashOf(request: DocumentRequest): string | undefined {
  if (typeof request.documentId === 'string') return request.documentId.replace(/^sha256:/, '');
  const persisted = isRecord(request.extensions) ? request.extensions.persistedQuery : undefined;
  return isRecord(persisted) && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

function refusal(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status: 400 } } });
}
