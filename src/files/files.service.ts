import { tenantS3Prefix } from '../common/s3-key';
import type { Config } from '../config';
import { AppError, badInput, ErrorCode } from '../errors';
import type { FileStore, UploadTarget } from '../infra/s3/files';

/**
 * S3 for one caller: upload targets and download URLs for keys under the caller's tenant prefix
 * only, so even a key that slipped into an item could never be signed for another tenant.
 */
export class FilesService {
  constructor(
    private readonly store: FileStore | undefined,
    private readonly tenantId: string,
    private readonly limits: Config['files'],
  ) {}

  private files(): FileStore {
    if (!this.store) throw new AppError(ErrorCode.INTERNAL, 'File storage is not configured.');
    return this.store;
  }

  private own(key: string): string {
    if (!key.startsWith(tenantS3Prefix(this.tenantId))) throw new AppError(ErrorCode.INTERNAL, 'Refusing to sign a key outside the tenant prefix.');
    return key;
  }

  get uploadExpiryHours(): number {
    return this.limits.uploadExpiryHours;
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
   * A presigned GET made now, valid `expiresIn` seconds (the default when omitted). Throws
   * BAD_USER_INPUT when more than the configured maximum is asked for.
   */
  async downloadUrl(key: string, expiresIn?: number | null): Promise<string> {
    const seconds = expiresIn ?? this.limits.downloadUrlTtlSeconds;
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > this.limits.downloadUrlMaxTtlSeconds) {
      throw badInput(`expiresIn must be between 1 and ${this.limits.downloadUrlMaxTtlSeconds} seconds, got ${seconds}.`, 'expiresIn');
    }
    return this.files().presignDownload(this.own(key), seconds);
  }

  async head(key: string) {
    return this.files().head(this.own(key));
  }

  async deleteMany(keys: string[]) {
    return this.files().deleteMany(keys.map((k) => this.own(k)));
  }
}
