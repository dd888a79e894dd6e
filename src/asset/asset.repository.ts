import { activityEvent } from '../common/activity-event';
import { entities, MAX_ASSET_VERSIONS, MAX_STORED_ASSET_VERSIONS, type AssetVersionItem } from '../common/entities';
import { checkedRef } from '../common/fields';
import { mutate, remove } from '../common/mutate';
import { applyPatch, boundedJson, nonNegativeInt, optionalText, requireText } from '../common/validate';
import { AppError, badInput, ErrorCode, invalidTransition, notFound } from '../errors';
import type { Selection } from '../common/projection';
import type { PageRequest } from '../infra/dynamo/store';
import type { Write } from '../infra/dynamo/write';
import { logger } from '../logger';
import { ProjectChildRepository } from '../project/project-child.repository';
import { assetObjectKey, assetObjectPrefix } from './asset.keys';
import { Uploads } from '../common/files/upload';
import { UploadStatus } from '../common/files/upload.type';
import type { AssetType, RequestAssetUploadInput, RequestAssetVersionInput } from './asset.type';

type CreateAssetInput = typeof entities.Asset.createInput;
type UpdateAssetInput = typeof entities.Asset.updateInput;

export { MAX_ASSET_VERSIONS };

/**
 * Assets of a project: metadata here, bytes in S3 under `tenants/<t>/projects/<p>/assets/<a>/v<n>/`.
 * Every version keeps its own key; the asset shows the latest confirmed one. A log keeps the ids
 * of its linked assets (`assetIds`), updated in the same transaction, so `Log.assets` is one
 * batched read.
 */
export class AssetRepository extends ProjectChildRepository<typeof entities.Asset> {
  private readonly uploads = new Uploads(this.scope.files, this.scope.now);

  /** Adds or removes `assetId` in the log's set; a missing log fails the transaction with NOT_FOUND. */
  private linkWrite(projectId: string, logId: string, assetId: string, op: 'ADD' | 'DELETE'): Write {
    checkedRef(this.model.attributes.linkedLogId, logId, 'linkedLogId');
    const log = this.scope.tenant.of(entities.Log).update({ projectId, logId }, ['assetIds']);
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

  /** The versions worth showing: confirmed and archived ones, and pending uploads whose window is still open. */
  versions<V extends Pick<AssetVersionItem, 'status' | 'uploadExpiresAt'>>(asset: { versions?: V[] }): V[] {
    return (asset.versions ?? []).filter((v) => this.uploads.isLive(v));
  }

  /**
   * The tenant's ready assets of one type, newest first, created in [from, to): one query of the
   * sparse type index per page, reading nothing else.
   */
  listByType(type: AssetType, range: { from?: Date | null; to?: Date | null }, page: PageRequest, selection: Selection | undefined) {
    const from = range.from?.toISOString();
    const to = range.to?.toISOString();
    if (from && to && from >= to) throw badInput('from must be before to.', 'from');
    return this.page(this.keys.query('byType', { type }, { descending: true, range: { from, to } }), page, selection);
  }

  /** Registers an object that is already in S3 (its key validated) as a ready asset. */
  override create(projectId: string, input: CreateAssetInput, idempotencyKey?: string | null) {
    const assetId = this.scope.newId('asset');
    this.valuesOf(projectId, assetId);
    const s3Key = this.scope.tenant.objectKey(input.s3Key, 's3Key');
    const now = this.scope.now().toISOString();
    const size = nonNegativeInt(input.size, 'size') ?? undefined;
    const contentType = optionalText(input.contentType, 'contentType', 200) ?? undefined;
    const item = {
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
    return this.createItem(
      item,
      this.newAssetChecks(projectId, assetId, item.linkedLogId),
      { data: { type: item.type, s3Key } },
      this.createRequest(idempotencyKey, { projectId, input }),
    );
  }

  /**
   * Starts an upload: the asset is created UPLOADING (it expires unless confirmed in time) and the
   * caller gets a presigned PUT that binds the declared content type and size.
   */
  async requestUpload(projectId: string, input: RequestAssetUploadInput, idempotencyKey?: string | null) {
    this.uploads.check(input);
    const fileName = requireText(input.fileName, 'fileName', 255);
    const assetId = this.scope.newId('asset');
    this.valuesOf(projectId, assetId);
    const s3Key = assetObjectKey(this.scope.tenant, projectId, assetId, 1, fileName);
    const pending = this.uploads.start(s3Key, input);
    const version = { version: 1, fileName, createdAt: this.scope.now().toISOString(), ...pending };
    const item = {
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
    const asset = await this.createItem(
      item,
      this.newAssetChecks(projectId, assetId, item.linkedLogId),
      { action: 'asset.upload_requested', data: { version: 1, s3Key } },
      { key: idempotencyKey, operation: 'requestAssetUpload', input: { projectId, input } },
    );
    // A repeat of the request gets the first request's asset, and a fresh URL for its first upload.
    const first = asset.versions[0];
    const upload = await this.uploads.target(
      asset.assetId === assetId || !first
        ? pending
        : { ...pending, s3Key: first.s3Key, size: first.size ?? pending.size, contentType: first.contentType ?? pending.contentType },
    );
    return { asset, version: 1, upload };
  }

  /** Starts the upload of the next version of a ready asset; an earlier unconfirmed one is dropped. */
  async requestVersionUpload(projectId: string, assetId: string, input: RequestAssetVersionInput, expectedVersion?: number | null) {
    this.uploads.check(input);
    const fileName = requireText(input.fileName, 'fileName', 255);
    let pending: AssetVersionItem | undefined;
    const asset = await mutate(this.scope, this.target(this.valuesOf(projectId, assetId)), expectedVersion, (current) => {
      if (current.status !== UploadStatus.READY) throw invalidTransition('Asset', assetId, current.status, 'uploading a new version');
      // An earlier upload never confirmed is dropped; confirmed and archived versions stay.
      const kept = current.versions.filter((v) => v.status !== UploadStatus.UPLOADING);
      if (kept.filter((v) => v.status === UploadStatus.READY).length >= MAX_ASSET_VERSIONS)
        throw new AppError(
          ErrorCode.BAD_USER_INPUT,
          `An asset keeps at most ${MAX_ASSET_VERSIONS} readable versions; set the tenant's keepAssetVersions to archive older ones.`,
        );
      if (kept.length >= MAX_STORED_ASSET_VERSIONS)
        throw new AppError(ErrorCode.BAD_USER_INPUT, `An asset's history holds at most ${MAX_STORED_ASSET_VERSIONS} versions.`);
      const number = Math.max(...kept.map((v) => v.version)) + 1;
      const s3Key = assetObjectKey(this.scope.tenant, projectId, assetId, number, fileName);
      const started: AssetVersionItem = {
        version: number,
        fileName,
        createdAt: this.scope.now().toISOString(),
        ...this.uploads.start(s3Key, input),
      };
      pending = started;
      return {
        item: { ...current, versions: [...kept, started] },
        event: { action: 'asset.version_upload_requested', data: { version: number, s3Key } },
      };
    });
    if (!pending) throw new Error('The version upload was not started.');
    const upload = await this.uploads.target({
      s3Key: pending.s3Key,
      status: UploadStatus.UPLOADING,
      size: input.size,
      contentType: input.contentType,
    });
    return { asset, version: pending.version, upload };
  }

  /** The tenant's `keepAssetVersions`: how many readable versions an asset keeps (undefined: all, up to the cap). */
  private async keepVersions(): Promise<number | undefined> {
    const tenant = await this.scope.items.load(this.scope.tenant.of(entities.Tenant).keyOf({}));
    return entities.Tenant.is(tenant) ? tenant.keepAssetVersions : undefined;
  }

  /**
   * Confirms the pending upload: S3 must hold an object at its key with the declared size and
   * content type. Then that version is READY and becomes the latest. Throws BAD_USER_INPUT with
   * `reason` UPLOAD_MISSING, UPLOAD_MISMATCH or UPLOAD_EXPIRED otherwise, and nothing changes.
   *
   * Retention: when the tenant keeps N versions and this one makes more than N readable, the
   * oldest readable ones are marked ARCHIVED in the same transaction, each with its
   * `asset.version_archived` event; then their objects are tagged for the bucket's lifecycle rule
   * (src/infra/s3/archive-tag.ts), which moves them to an archival storage class.
   */
  async confirmUpload(projectId: string, assetId: string) {
    const target = this.target(this.valuesOf(projectId, assetId));
    const read = await this.scope.store.get(this.keys.keyOf(target.values));
    if (!entities.Asset.is(read)) throw notFound('Asset', assetId);
    const pending = read.versions.find((v) => v.status === UploadStatus.UPLOADING);
    if (!pending) throw invalidTransition('Asset', assetId, 'ready', 'ready');
    const [confirmed, keep] = await Promise.all([this.uploads.confirm(pending), this.keepVersions()]);
    let archived: AssetVersionItem[] = [];
    // Written only if nothing changed since the read, so the version confirmed is the one checked.
    const asset = await mutate(this.scope, target, read.version, (current) => {
      const now = this.scope.now().toISOString();
      const withConfirmed = current.versions.map((v) => (v.version === pending.version ? { ...v, ...confirmed } : v));
      const readable = withConfirmed.filter((v) => v.status === UploadStatus.READY).sort((a, b) => a.version - b.version);
      const archive = new Set(keep ? readable.slice(0, Math.max(0, readable.length - keep)).map((v) => v.version) : []);
      const versions = withConfirmed.map(
        (v): AssetVersionItem => (archive.has(v.version) ? { ...v, status: 'archived', archivedAt: now } : v),
      );
      archived = versions.filter((v) => archive.has(v.version));
      const subject = { type: entities.Asset.type, id: assetId, projectId };
      return {
        derived: archived.map((v) =>
          activityEvent(this.scope, { action: 'asset.version_archived', subject, data: { version: v.version, s3Key: v.s3Key, keep } }),
        ),
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
        event: { action: 'asset.upload_confirmed', data: { version: pending.version, s3Key: pending.s3Key } },
      };
    });
    // S3 is not part of the transaction: a tag that fails is logged, and the version stays
    // ARCHIVED (unreadable through the API) in its current storage class.
    await Promise.all(
      archived.map((v) =>
        this.scope.files
          .markArchived(v.s3Key)
          .catch((err) => logger.warn({ err, assetId, version: v.version }, 'could not tag an archived version')),
      ),
    );
    return asset;
  }

  override update(projectId: string, assetId: string, expectedVersion: number, input: UpdateAssetInput) {
    const patch = {
      exif: boundedJson(input.exif, 'exif'),
      ocr: optionalText(input.ocr, 'ocr', 100_000),
      alt: optionalText(input.alt, 'alt', 2000),
      linkedLogId: input.linkedLogId,
    };
    return mutate(this.scope, this.target(this.valuesOf(projectId, assetId)), expectedVersion, (current) => {
      const derived: Write[] = [];
      if (input.linkedLogId !== undefined && input.linkedLogId !== current.linkedLogId) {
        if (current.linkedLogId) derived.push(this.linkWrite(projectId, current.linkedLogId, assetId, 'DELETE'));
        if (input.linkedLogId) derived.push(this.linkWrite(projectId, input.linkedLogId, assetId, 'ADD'));
      }
      return {
        item: applyPatch(current, patch),
        derived,
        event: { action: 'asset.updated', data: { fields: Object.keys(input) } },
      };
    });
  }

  /**
   * Deletes the asset's items and then the objects its uploads made in S3 (every version, under
   * assetObjectPrefix). An object that createAsset registered where it already was is left: the
   * asset did not make it, and another asset, or a log, may hold it too. An object that cannot be
   * deleted is logged, never resurrected: its item is gone, so nothing points at it.
   */
  override async delete(projectId: string, assetId: string, expectedVersion?: number | null) {
    const deleted = await remove(this.scope, this.target(this.valuesOf(projectId, assetId)), expectedVersion, (current) => ({
      derived: current.linkedLogId ? [this.linkWrite(projectId, current.linkedLogId, assetId, 'DELETE')] : [],
      event: { action: 'asset.deleted', data: { s3Key: current.s3Key } },
    }));
    const own = assetObjectPrefix(this.scope.tenant, projectId, assetId);
    const keys = [...new Set([deleted.s3Key, ...deleted.versions.map((v) => v.s3Key)])].filter((key) => key?.startsWith(own));
    await this.scope.files
      .deleteMany(keys)
      .catch((err) => logger.warn({ err, assetId, objects: keys.length }, 'could not delete asset objects'));
    return deleted;
  }
}
