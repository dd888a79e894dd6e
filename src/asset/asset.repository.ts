import { assertId } from '../common/ids';
import { create, mutate, remove } from '../common/mutate';
import { validateS3Key } from '../common/s3-key';
import { applyPatch, boundedJson, nonNegativeInt, optionalText, requireText } from '../common/validate';
import { AppError, ErrorCode, invalidTransition, notFound } from '../errors';
import { update, type Write } from '../infra/dynamo/write';
import { logger } from '../logger';
import { logKey } from '../log/log.keys';
import { ProjectChildRepository } from '../project/project-child.repository';
import { assetKey, assetObjectKey } from './asset.keys';
import { Uploads, type PendingUpload } from '../files/upload';
import { UploadStatus } from '../files/upload.type';
import {
  type Asset,
  type AssetUpload,
  type AssetVersion,
  type CreateAssetInput,
  type RequestAssetUploadInput,
  type RequestAssetVersionInput,
  type UpdateAssetInput,
} from './asset.type';

/** An asset keeps at most this many versions in its history. */
export const MAX_ASSET_VERSIONS = 100;

/**
 * Assets of a project: metadata here, bytes in S3 under `tenants/<t>/projects/<p>/assets/<a>/v<n>/`.
 * Every version keeps its own key; the asset shows the latest confirmed one. A log keeps the ids
 * of its linked assets (`assetIds`), updated in the same transaction, so `Log.assets` is one
 * batched read.
 */
export class AssetRepository extends ProjectChildRepository<Asset> {
  protected readonly kind = 'Asset';
  private readonly uploads = new Uploads(this.scope.files, this.scope.now);

  /** Adds or removes `assetId` in the log's set; a missing log fails the transaction with NOT_FOUND. */
  private linkWrite(projectId: string, logId: string, assetId: string, op: 'ADD' | 'DELETE'): Write {
    assertId(logId, 'log', 'linkedLogId');
    const log = update(logKey(this.scope.tenantId, projectId, logId));
    return (op === 'ADD' ? log.addToSet('assetIds', [assetId]) : log.deleteFromSet('assetIds', [assetId])).ifExists(() =>
      notFound('Log', logId),
    );
  }

  /** What a new asset's transaction also needs: an active project, and the link on its log. */
  private newAssetChecks(projectId: string, assetId: string, linkedLogId: string | undefined): Write[] {
    const checks = [this.projects.activeProjectCheck(projectId)];
    if (linkedLogId) checks.push(this.linkWrite(projectId, linkedLogId, assetId, 'ADD'));
    return checks;
  }

  /** Loads many assets of one project in one batched read; missing ones are left out. */
  async getMany(projectId: string, assetIds: Iterable<string>): Promise<Asset[]> {
    const keys = [...assetIds].map((id) => assetKey(this.scope.tenantId, projectId, id));
    const items = await this.scope.items.loadMany(keys);
    return items.filter((a): a is Asset & Record<string, unknown> => a != null && !(a instanceof Error)) as Asset[];
  }

  /** The versions worth showing: confirmed ones, and pending uploads whose window is still open. */
  versions(asset: Asset): AssetVersion[] {
    return (asset.versions ?? []).filter((v) => this.uploads.isLive(v));
  }

  /** Registers an object that is already in S3 (its key validated) as a ready asset. */
  async create(projectId: string, input: CreateAssetInput): Promise<Asset> {
    const assetId = this.scope.newId('asset');
    const { key } = this.subject(projectId, assetId);
    const s3Key = validateS3Key(input.s3Key, this.scope.tenantId, 's3Key');
    const now = this.scope.now().toISOString();
    const size = nonNegativeInt(input.size, 'size') ?? undefined;
    const contentType = optionalText(input.contentType, 'contentType', 200) ?? undefined;
    const item = {
      ...key,
      entityType: 'Asset',
      assetId,
      projectId,
      type: input.type,
      s3Key,
      status: UploadStatus.READY,
      size,
      contentType,
      latestVersion: 1,
      versions: [{ version: 1, s3Key, size, contentType, status: UploadStatus.READY, createdAt: now, confirmedAt: now }],
      exif: boundedJson(input.exif, 'exif') ?? undefined,
      ocr: optionalText(input.ocr, 'ocr', 100_000) ?? undefined,
      alt: optionalText(input.alt, 'alt', 2000) ?? undefined,
      linkedLogId: input.linkedLogId ?? undefined,
    };
    return create(
      this.scope,
      item,
      { action: 'asset.created', entityType: 'Asset', entityId: assetId, projectId, data: { type: item.type, s3Key } },
      this.newAssetChecks(projectId, assetId, item.linkedLogId),
    );
  }

  /**
   * Starts an upload: the asset is created UPLOADING (it expires unless confirmed in time) and the
   * caller gets a presigned PUT that binds the declared content type and size.
   */
  async requestUpload(projectId: string, input: RequestAssetUploadInput): Promise<AssetUpload> {
    this.uploads.check(input);
    const fileName = requireText(input.fileName, 'fileName', 255);
    const assetId = this.scope.newId('asset');
    const { key } = this.subject(projectId, assetId);
    const s3Key = assetObjectKey(this.scope.tenantId, projectId, assetId, 1, fileName);
    const pending = this.uploads.start(s3Key, input);
    const version = { version: 1, fileName, createdAt: this.scope.now().toISOString(), ...pending };
    const item = {
      ...key,
      entityType: 'Asset',
      assetId,
      projectId,
      type: input.type,
      s3Key,
      status: pending.status,
      size: input.size,
      contentType: input.contentType,
      versions: [version],
      alt: optionalText(input.alt, 'alt', 2000) ?? undefined,
      linkedLogId: input.linkedLogId ?? undefined,
      // A first upload never confirmed disappears with its item.
      expiresAt: pending.uploadExpiresAt,
    };
    const upload = await this.uploads.target(pending);
    const asset = await create(
      this.scope,
      item,
      { action: 'asset.upload_requested', entityType: 'Asset', entityId: assetId, projectId, data: { version: 1, s3Key } },
      this.newAssetChecks(projectId, assetId, item.linkedLogId),
    );
    return { asset, version: 1, upload };
  }

  /** Starts the upload of the next version of a ready asset; an earlier unconfirmed one is dropped. */
  async requestVersionUpload(
    projectId: string,
    assetId: string,
    input: RequestAssetVersionInput,
    expectedVersion?: number | null,
  ): Promise<AssetUpload> {
    this.uploads.check(input);
    const fileName = requireText(input.fileName, 'fileName', 255);
    let pending: (AssetVersion & PendingUpload) | undefined;
    const asset = await mutate(this.scope, this.subject(projectId, assetId), expectedVersion, (current) => {
      if (current.status !== UploadStatus.READY) throw invalidTransition('Asset', assetId, current.status, 'uploading a new version');
      const confirmed = (current.versions as AssetVersion[]).filter((v) => v.status === UploadStatus.READY);
      if (confirmed.length >= MAX_ASSET_VERSIONS)
        throw new AppError(ErrorCode.BAD_USER_INPUT, `An asset keeps at most ${MAX_ASSET_VERSIONS} versions.`);
      const number = Math.max(...confirmed.map((v) => v.version)) + 1;
      const s3Key = assetObjectKey(this.scope.tenantId, projectId, assetId, number, fileName);
      pending = { version: number, fileName, createdAt: this.scope.now().toISOString(), ...this.uploads.start(s3Key, input) };
      return {
        item: { ...current, versions: [...confirmed, pending] },
        event: {
          action: 'asset.version_upload_requested',
          entityType: 'Asset',
          entityId: assetId,
          projectId,
          data: { version: number, s3Key },
        },
      };
    });
    const upload = await this.uploads.target(pending!);
    return { asset, version: pending!.version, upload };
  }

  /**
   * Confirms the pending upload: S3 must hold an object at its key with the declared size and
   * content type. Then that version is READY and becomes the latest. Throws BAD_USER_INPUT with
   * `reason` UPLOAD_MISSING, UPLOAD_MISMATCH or UPLOAD_EXPIRED otherwise, and nothing changes.
   */
  async confirmUpload(projectId: string, assetId: string): Promise<Asset> {
    const subject = this.subject(projectId, assetId);
    const read = await this.scope.store.get(subject.key);
    if (!read) throw notFound('Asset', assetId);
    const pending = (read.versions as AssetVersion[]).find((v) => v.status === UploadStatus.UPLOADING);
    if (!pending) throw invalidTransition('Asset', assetId, 'ready', 'ready');
    const confirmed = await this.uploads.confirm(pending);
    // Written only if nothing changed since the read, so the version confirmed is the one checked.
    return mutate(this.scope, subject, read.version, (current) => {
      const versions = (current.versions as AssetVersion[]).map((v) => (v.version === pending.version ? { ...v, ...confirmed } : v));
      return {
        item: {
          ...current,
          status: confirmed.status,
          versions,
          latestVersion: pending.version,
          s3Key: pending.s3Key,
          size: pending.size,
          contentType: pending.contentType,
          expiresAt: undefined,
        },
        event: {
          action: 'asset.upload_confirmed',
          entityType: 'Asset',
          entityId: assetId,
          projectId,
          data: { version: pending.version, s3Key: pending.s3Key },
        },
      };
    });
  }

  async update(projectId: string, assetId: string, expectedVersion: number, input: UpdateAssetInput): Promise<Asset> {
    const patch = {
      exif: boundedJson(input.exif, 'exif'),
      ocr: optionalText(input.ocr, 'ocr', 100_000),
      alt: optionalText(input.alt, 'alt', 2000),
      linkedLogId: input.linkedLogId,
    };
    return mutate(this.scope, this.subject(projectId, assetId), expectedVersion, (current) => {
      const derived: Write[] = [];
      if (input.linkedLogId !== undefined && input.linkedLogId !== current.linkedLogId) {
        if (current.linkedLogId) derived.push(this.linkWrite(projectId, current.linkedLogId, assetId, 'DELETE'));
        if (input.linkedLogId) derived.push(this.linkWrite(projectId, input.linkedLogId, assetId, 'ADD'));
      }
      return {
        item: applyPatch(current, patch),
        derived,
        event: { action: 'asset.updated', entityType: 'Asset', entityId: assetId, projectId, data: { fields: Object.keys(input) } },
      };
    });
  }

  /**
   * Deletes the asset's items and then its objects in S3 (every version). An object that cannot
   * be deleted is logged, never resurrected: its item is gone, so nothing points at it.
   */
  async delete(projectId: string, assetId: string, expectedVersion?: number | null): Promise<Asset> {
    const deleted = await remove(this.scope, this.subject(projectId, assetId), expectedVersion, (current) => ({
      derived: current.linkedLogId ? [this.linkWrite(projectId, current.linkedLogId, assetId, 'DELETE')] : [],
      event: { action: 'asset.deleted', entityType: 'Asset', entityId: assetId, projectId, data: { s3Key: current.s3Key } },
    }));
    const keys = [...new Set([deleted.s3Key, ...(deleted.versions ?? []).map((v) => v.s3Key)])].filter(Boolean);
    await this.scope.files
      .deleteMany(keys)
      .catch((err) => logger.warn({ err, assetId, objects: keys.length }, 'could not delete asset objects'));
    return deleted;
  }
}
