import { tenantS3Prefix } from '../s3-key';
import type { Config } from '../../config';
import { AppError, badInput, ErrorCode } from '../../errors';
import { ARCHIVE_PREFIX, ARCHIVED_TAG } from '../../infra/s3/archive-tag';
import type { FileStore, UploadTarget } from '../../infra/s3/files';

// The files service adds itself to ctx.repos here, as every feature adds its repository, so that the context imports nothing of common.
declare module '../../context' {
  interface Repositories {
    /** Presigned upload and download URLs under the caller's tenant prefix. */
    files: FilesService;
  }
}

const uploadError = (reason: 'UPLOAD_MISSING' | 'UPLOAD_MISMATCH' | 'UPLOAD_EXPIRED', message: string) =>
  new AppError(ErrorCode.BAD_USER_INPUT, message, { reason });

/**
 * S3 for one caller: upload targets and download URLs for keys under the caller's tenant prefix
 * only, so even a key that slipped into an item could never be signed for another tenant.
 */
export class FilesService {
  /**
   * The download URLs this caller (one request) was handed, by key and lifetime. A query that
   * graphql-js answers again after its compiled run (src/graphql/compiled-queries.ts) resolves its
   * fields a second time; with this, the second run hands out the same URL, and the audit trail
   * records it once, the URL it records being the one sent.
   */
  private readonly handedOut = new Map<string, Promise<string>>();

  constructor(
    private readonly store: FileStore | undefined,
    private readonly tenantId: string,
    private readonly limits: Config['files'],
    /**
     * Records a download URL handed out (the audit trail); a URL is returned only once its record
     * is written. Offline tools that sign nothing for people leave it out.
     */
    private readonly recordDownload?: (key: string, expiresInSeconds: number) => Promise<void>,
  ) {}

  private files(): FileStore {
    if (!this.store) throw new AppError(ErrorCode.INTERNAL, 'File storage is not configured.');
    return this.store;
  }

  private own(key: string): string {
    if (!key.startsWith(tenantS3Prefix(this.tenantId)))
      throw new AppError(ErrorCode.INTERNAL, 'Refusing to sign a key outside the tenant prefix.');
    return key;
  }

  /** The key of `name` in this tenant's cold storage: `archive/tenants/<t>/<name>`. */
  coldKey(name: string): string {
    return `${ARCHIVE_PREFIX}${tenantS3Prefix(this.tenantId)}${name}`;
  }

  /** Writes an object of this tenant's cold storage (src/archive); it is never signed for anyone. */
  writeCold(name: string, body: Uint8Array, options: { contentType: string; contentEncoding?: string; metadata?: Record<string, string> }) {
    return this.files().write(this.coldKey(name), body, options);
  }

  /** Reads an object of this tenant's cold storage, or null when there is none. */
  readCold(name: string) {
    return this.files().read(this.coldKey(name));
  }

  /** Deletes objects of this tenant's cold storage (missing ones are no error). */
  deleteCold(names: string[]) {
    return this.files().deleteMany(names.map((name) => this.coldKey(name)));
  }

  /** Checks a declared upload: size within the limit, a `type/subtype` content type. */
  checkUpload(size: number, contentType: string): void {
    if (!Number.isInteger(size) || size < 1 || size > this.limits.uploadMaxBytes) {
      throw badInput(`size must be between 1 and ${this.limits.uploadMaxBytes} bytes, got ${size}.`, 'size');
    }
    if (!/^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i.test(contentType) || contentType.length > 200) {
      throw badInput(`contentType must look like type/subtype (e.g. image/png), got "${contentType}".`, 'contentType');
    }
  }

  async uploadTarget(key: string, contentType: string, size: number): Promise<UploadTarget> {
    return this.files().presignUpload(this.own(key), contentType, size, this.limits.uploadUrlTtlSeconds);
  }

  /**
   * A presigned GET made now, valid `expiresIn` seconds (the default when omitted), recorded in
   * the audit trail before it is returned; the same key and lifetime asked again by this caller
   * get the same URL and record (see handedOut). Throws BAD_USER_INPUT when more than the
   * configured maximum is asked for.
   */
  async downloadUrl(key: string, expiresIn?: number | null): Promise<string> {
    const seconds = expiresIn ?? this.limits.downloadUrlTtlSeconds;
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > this.limits.downloadUrlMaxTtlSeconds) {
      throw badInput(`expiresIn must be between 1 and ${this.limits.downloadUrlMaxTtlSeconds} seconds, got ${seconds}.`, 'expiresIn');
    }
    const id = `${seconds}\u0000${key}`;
    let handed = this.handedOut.get(id);
    if (!handed) {
      handed = (async () => {
        const url = await this.files().presignDownload(this.own(key), seconds);
        await this.recordDownload?.(key, seconds);
        return url;
      })();
      this.handedOut.set(id, handed);
    }
    return handed;
  }

  /**
   * Checks that what was uploaded to `key` is what was declared: it must exist, have the declared
   * size and content type, and the upload window must still be open. Throws BAD_USER_INPUT with
   * `reason` UPLOAD_EXPIRED, UPLOAD_MISSING or UPLOAD_MISMATCH otherwise.
   */
  async verifyUpload(key: string, declared: { size?: number; contentType?: string; uploadExpiresAt?: number }): Promise<void> {
    if ((declared.uploadExpiresAt ?? Infinity) <= Math.floor(Date.now() / 1000)) {
      throw uploadError('UPLOAD_EXPIRED', 'The upload window has closed; request a new upload.');
    }
    const object = await this.files().head(this.own(key));
    if (!object) throw uploadError('UPLOAD_MISSING', `Nothing was uploaded to ${key} yet; PUT the file to the upload URL first.`);
    if (object.size !== declared.size || object.contentType?.toLowerCase() !== declared.contentType?.toLowerCase()) {
      throw uploadError(
        'UPLOAD_MISMATCH',
        `The uploaded object is ${object.size} bytes of ${object.contentType ?? 'unknown type'}, but the upload declared ${declared.size} bytes of ${declared.contentType}.`,
      );
    }
  }

  /**
   * Tags the object as archived, for the bucket's lifecycle rule to move it to an archival storage
   * class (see src/infra/s3/archive-tag.ts and deploy/storage-stack.ts).
   */
  async markArchived(key: string): Promise<void> {
    await this.files().addTag(this.own(key), ARCHIVED_TAG);
  }

  /** Epoch seconds at which an upload requested now stops being confirmable. */
  uploadDeadline(): number {
    return Math.floor(Date.now() / 1000) + this.limits.uploadExpiryHours * 3600;
  }

  async deleteMany(keys: string[]) {
    return this.files().deleteMany(keys.map((k) => this.own(k)));
  }
}
