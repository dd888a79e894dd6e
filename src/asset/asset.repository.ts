import { assertId, newId } from '../common/ids';
import { create, mutate, remove, type Subject } from '../common/mutate';
import { validateS3Key } from '../common/s3-key';
import type { Scope } from '../common/scope';
import { applyPatch, boundedJson, nonNegativeInt, optionalText } from '../common/validate';
import { notFound } from '../errors';
import type { Page, PageRequest, TxWrite } from '../infra/dynamo/store';
import { logKey } from '../log/log.keys';
import { projectChildren } from '../project/project.keys';
import type { ProjectRepository } from '../project/project.repository';
import { assetKey } from './asset.keys';
import { AssetStatus, type Asset, type CreateAssetInput, type UpdateAssetInput } from './asset.type';

/**
 * Assets of a project (metadata; the bytes live in S3). A log keeps the ids of its linked assets
 * (`assetIds`), updated in the same transaction as the asset, so `Log.assets` is one batched read.
 */
export class AssetRepository {
  constructor(
    private readonly scope: Scope,
    private readonly projects: ProjectRepository,
  ) {}

  private subject(projectId: string, assetId: string): Subject {
    assertId(projectId, 'proj', 'projectId');
    assertId(assetId, 'asset', 'assetId');
    return { entity: 'Asset', id: assetId, key: assetKey(this.scope.tenantId, projectId, assetId) };
  }

  /** Adds or removes `assetId` in the log's set; a missing log fails the transaction with NOT_FOUND. */
  private linkWrite(projectId: string, logId: string, assetId: string, op: 'ADD' | 'DELETE'): TxWrite {
    assertId(logId, 'log', 'linkedLogId');
    return {
      Update: {
        TableName: '',
        Key: logKey(this.scope.tenantId, projectId, logId),
        UpdateExpression: `${op} assetIds :ids`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':ids': new Set([assetId]) },
      },
      onConditionFailed: () => notFound('Log', logId),
    };
  }

  async get(projectId: string, assetId: string): Promise<Asset | null> {
    return (await this.scope.items.load(this.subject(projectId, assetId).key)) as Asset | null;
  }

  /** Loads many assets of one project in one batched read; missing ones are left out. */
  async getMany(projectId: string, assetIds: Iterable<string>): Promise<Asset[]> {
    const keys = [...assetIds].map((id) => assetKey(this.scope.tenantId, projectId, id));
    const items = await this.scope.items.loadMany(keys);
    return items.filter((a): a is Asset & Record<string, unknown> => a != null && !(a instanceof Error)) as Asset[];
  }

  list(projectId: string, page: PageRequest): Promise<Page<Asset>> {
    assertId(projectId, 'proj', 'projectId');
    return this.scope.page(projectChildren(this.scope.tenantId, projectId, 'ASSET'), page) as Promise<Page<Asset>>;
  }

  async create(projectId: string, input: CreateAssetInput): Promise<Asset> {
    const assetId = newId('asset');
    const { key } = this.subject(projectId, assetId);
    const item = {
      ...key,
      entityType: 'Asset',
      assetId,
      projectId,
      type: input.type,
      s3Key: validateS3Key(input.s3Key, this.scope.tenantId, 's3Key'),
      status: AssetStatus.READY,
      size: nonNegativeInt(input.size, 'size') ?? undefined,
      contentType: optionalText(input.contentType, 'contentType', 200) ?? undefined,
      exif: boundedJson(input.exif, 'exif') ?? undefined,
      ocr: optionalText(input.ocr, 'ocr', 100_000) ?? undefined,
      alt: optionalText(input.alt, 'alt', 2000) ?? undefined,
      linkedLogId: input.linkedLogId ?? undefined,
    };
    const derived = [this.projects.activeProjectCheck(projectId)];
    if (item.linkedLogId) derived.push(this.linkWrite(projectId, item.linkedLogId, assetId, 'ADD'));
    return (await create(
      this.scope,
      item,
      { action: 'asset.created', entityType: 'Asset', entityId: assetId, projectId, data: { type: item.type, s3Key: item.s3Key } },
      derived,
    )) as Asset;
  }

  async update(projectId: string, assetId: string, expectedVersion: number, input: UpdateAssetInput): Promise<Asset> {
    const patch = {
      exif: boundedJson(input.exif, 'exif'),
      ocr: optionalText(input.ocr, 'ocr', 100_000),
      alt: optionalText(input.alt, 'alt', 2000),
      linkedLogId: input.linkedLogId,
    };
    return (await mutate(this.scope, this.subject(projectId, assetId), expectedVersion, (current) => {
      const derived: TxWrite[] = [];
      if (input.linkedLogId !== undefined && input.linkedLogId !== current.linkedLogId) {
        if (current.linkedLogId) derived.push(this.linkWrite(projectId, current.linkedLogId, assetId, 'DELETE'));
        if (input.linkedLogId) derived.push(this.linkWrite(projectId, input.linkedLogId, assetId, 'ADD'));
      }
      return {
        item: applyPatch(current, patch),
        derived,
        event: { action: 'asset.updated', entityType: 'Asset', entityId: assetId, projectId, data: { fields: Object.keys(input) } },
      };
    })) as Asset;
  }

  async delete(projectId: string, assetId: string, expectedVersion?: number | null): Promise<Asset> {
    return (await remove(this.scope, this.subject(projectId, assetId), expectedVersion, (current) => ({
      derived: current.linkedLogId ? [this.linkWrite(projectId, current.linkedLogId, assetId, 'DELETE')] : [],
      event: { action: 'asset.deleted', entityType: 'Asset', entityId: assetId, projectId, data: { s3Key: current.s3Key } },
    }))) as Asset;
  }
}
