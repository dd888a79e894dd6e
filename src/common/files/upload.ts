import type { FilesService } from './files.service';
import { UploadStatus, type UploadTarget } from './upload.type';

/** What the client declared it will upload; the presigned PUT binds the size and content type. */
export interface DeclaredUpload {
  size: number;
  contentType: string;
}

/** An upload as its owner stores it (an asset version, an inspiration's file). */
export interface PendingUpload extends DeclaredUpload {
  s3Key: string;
  status: UploadStatus;
  /** Epoch seconds after which an unconfirmed upload can no longer be confirmed. */
  uploadExpiresAt?: number;
}

/**
 * The one upload lifecycle, shared by assets and inspiration: request (check what is declared,
 * set a deadline, hand out a presigned PUT), the client's PUT to S3, confirm (HeadObject must
 * show what was declared, before the deadline), and expiry of what was never confirmed. Owners
 * store the upload in their own item; this class never writes to the table.
 */
export class Uploads {
  constructor(
    private readonly files: FilesService,
    private readonly now: () => Date,
  ) {}

  /** Checks a declared upload; throws BAD_USER_INPUT (field `size` or `contentType`) when it is out of bounds. */
  check(declared: DeclaredUpload): void {
    this.files.checkUpload(declared.size, declared.contentType);
  }

  /** A new upload to `s3Key`: UPLOADING, confirmable until the configured deadline. */
  start(s3Key: string, declared: DeclaredUpload): PendingUpload & { uploadExpiresAt: number } {
    return {
      s3Key,
      size: declared.size,
      contentType: declared.contentType,
      status: UploadStatus.UPLOADING,
      uploadExpiresAt: this.files.uploadDeadline(),
    };
  }

  /** The presigned PUT for `upload` (its key under the caller's tenant prefix only). */
  target(upload: PendingUpload): Promise<UploadTarget> {
    return this.files.uploadTarget(upload.s3Key, upload.contentType, upload.size);
  }

  /**
   * Checks the uploaded object and returns the fields that mark the upload confirmed. Throws
   * BAD_USER_INPUT with `reason` UPLOAD_EXPIRED, UPLOAD_MISSING or UPLOAD_MISMATCH when S3 does not
   * hold what was declared in time; nothing is written either way.
   */
  async confirm(
    upload: Pick<PendingUpload, 's3Key' | 'uploadExpiresAt'> & Partial<DeclaredUpload>,
  ): Promise<{ status: typeof UploadStatus.READY; confirmedAt: string; uploadExpiresAt: undefined }> {
    await this.files.verifyUpload(upload.s3Key, upload);
    return { status: UploadStatus.READY, confirmedAt: this.now().toISOString(), uploadExpiresAt: undefined };
  }

  /** True while an upload is worth showing: confirmed, or still within its window. */
  isLive(upload: { status: string; uploadExpiresAt?: number }): boolean {
    return upload.status === UploadStatus.READY || (upload.uploadExpiresAt ?? Infinity) > Math.floor(this.now().getTime() / 1000);
  }
}
