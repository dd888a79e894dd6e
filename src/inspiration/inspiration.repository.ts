import { assertId } from '../common/ids';
import { normalizeText } from '../common/keys';
import { create, mutate, remove, type Subject } from '../common/mutate';
import { validateS3Key } from '../common/s3-key';
import type { Scope } from '../common/scope';
import { applyPatch, maxItems, optionalText, requireText } from '../common/validate';
import { notFound } from '../errors';
import { logger } from '../logger';
import type { Item, Page, PageRequest } from '../infra/dynamo/store';
import { del, put, type Write } from '../infra/dynamo/write';
import type { ProjectRepository } from '../project/project.repository';
import { Uploads } from '../files/upload';
import { UploadStatus } from '../files/upload.type';
import { invalidTransition } from '../errors';
import { allInspirations, inspirationKey, inspirationObjectKey, inspirationsByTag, inspirationTagKey } from './inspiration.keys';
import type {
  CreateInspirationInput,
  Inspiration,
  InspirationUpload,
  RequestInspirationUploadInput,
  UpdateInspirationInput,
} from './inspiration.type';

function cleanTags(tags: string[] | null | undefined): string[] | undefined {
  const list = maxItems(tags, 'tags', 30)?.map((t) => normalizeText(requireText(t, 'tags', 100)));
  return list ? [...new Set(list)] : undefined;
}

/** Inspiration of a tenant, with one tag item per tag written in the same transaction. */
export class InspirationRepository {
  private readonly uploads: Uploads;

  constructor(
    private readonly scope: Scope,
    private readonly projects: ProjectRepository,
  ) {
    this.uploads = new Uploads(scope.files, scope.now);
  }

  private subject(inspirationId: string): Subject<Inspiration> {
    assertId(inspirationId, 'insp', 'inspirationId');
    return { entity: 'Inspiration', id: inspirationId, key: inspirationKey(this.scope.tenantId, inspirationId) };
  }

  private tagWrites(before: string[], after: string[], inspirationId: string): Write[] {
    const { tenantId } = this.scope;
    return [
      ...before.filter((t) => !after.includes(t)).map((t) => del(inspirationTagKey(tenantId, t, inspirationId))),
      ...after
        .filter((t) => !before.includes(t))
        .map((tag) => put({ ...inspirationTagKey(tenantId, tag, inspirationId), entityType: 'InspirationTag', tag, inspirationId })),
    ];
  }

  async get(inspirationId: string): Promise<Inspiration | null> {
    return (await this.scope.items.load(this.subject(inspirationId).key)) as Inspiration | null;
  }

  /** Newest first; with a tag, through that tag's items and one batched read of the inspiration. */
  async list(tag: string | null | undefined, page: PageRequest): Promise<Page<Inspiration>> {
    const { tenantId } = this.scope;
    if (!tag) return this.scope.page(allInspirations(tenantId), page) as Promise<Page<Inspiration>>;
    const tags = await this.scope.page(inspirationsByTag(tenantId, requireText(tag, 'tag', 100)), page);
    const items = await this.scope.items.loadMany(tags.nodes.map((t) => inspirationKey(tenantId, t.inspirationId)));
    return { nodes: items.filter((i): i is Item => i != null && !(i instanceof Error)) as Inspiration[], pageInfo: tags.pageInfo };
  }

  async create(input: CreateInspirationInput): Promise<Inspiration> {
    const inspirationId = this.scope.newId('insp');
    const { key } = this.subject(inspirationId);
    const tags = cleanTags(input.tags) ?? [];
    const linkedProjectId = input.linkedProjectId ? assertId(input.linkedProjectId, 'proj', 'linkedProjectId') : undefined;
    const item = {
      ...key,
      entityType: 'Inspiration',
      inspirationId,
      type: input.type,
      text: optionalText(input.text, 'text', 20_000) ?? undefined,
      s3Key: input.s3Key == null ? undefined : validateS3Key(input.s3Key, this.scope.tenantId, 's3Key'),
      tags,
      linkedProjectId,
    };
    const derived = this.tagWrites([], tags, inspirationId);
    if (linkedProjectId) derived.push(this.projects.activeProjectCheck(linkedProjectId));
    return create(
      this.scope,
      item,
      {
        action: 'inspiration.created',
        entityType: 'Inspiration',
        entityId: inspirationId,
        projectId: linkedProjectId,
        data: { type: item.type, tags },
      },
      derived,
    );
  }

  /**
   * Creates an inspiration whose file is uploaded with the returned presigned PUT (type and size
   * bound). Its `url` stays null until `confirmUpload` has checked the object.
   */
  async requestUpload(input: RequestInspirationUploadInput): Promise<InspirationUpload> {
    this.uploads.check(input);
    const inspirationId = this.scope.newId('insp');
    const pending = this.uploads.start(
      inspirationObjectKey(this.scope.tenantId, inspirationId, requireText(input.fileName, 'fileName', 255)),
      input,
    );
    const tags = cleanTags(input.tags) ?? [];
    const linkedProjectId = input.linkedProjectId ? assertId(input.linkedProjectId, 'proj', 'linkedProjectId') : undefined;
    const item = {
      ...this.subject(inspirationId).key,
      entityType: 'Inspiration',
      inspirationId,
      type: input.type,
      text: optionalText(input.text, 'text', 20_000) ?? undefined,
      s3Key: pending.s3Key,
      fileStatus: pending.status,
      size: pending.size,
      contentType: pending.contentType,
      uploadExpiresAt: pending.uploadExpiresAt,
      tags,
      linkedProjectId,
    };
    const derived = this.tagWrites([], tags, inspirationId);
    if (linkedProjectId) derived.push(this.projects.activeProjectCheck(linkedProjectId));
    const upload = await this.uploads.target(pending);
    const inspiration = await create(
      this.scope,
      item,
      {
        action: 'inspiration.upload_requested',
        entityType: 'Inspiration',
        entityId: inspirationId,
        projectId: linkedProjectId,
        data: { s3Key: pending.s3Key },
      },
      derived,
    );
    return { inspiration, upload };
  }

  /** Checks the uploaded object (see Uploads.confirm) and marks the file READY. */
  async confirmUpload(inspirationId: string): Promise<Inspiration> {
    const subject = this.subject(inspirationId);
    const read = await this.scope.store.get(subject.key);
    if (!read) throw notFound('Inspiration', inspirationId);
    if (read.fileStatus !== UploadStatus.UPLOADING)
      throw invalidTransition('Inspiration', inspirationId, read.fileStatus ?? 'no file', UploadStatus.READY);
    const confirmed = await this.uploads.confirm({
      s3Key: read.s3Key,
      size: read.size,
      contentType: read.contentType,
      uploadExpiresAt: read.uploadExpiresAt,
    });
    return mutate(this.scope, subject, read.version, (current) => ({
      item: { ...current, fileStatus: confirmed.status, uploadExpiresAt: confirmed.uploadExpiresAt },
      event: {
        action: 'inspiration.upload_confirmed',
        entityType: 'Inspiration',
        entityId: inspirationId,
        projectId: current.linkedProjectId,
        data: { s3Key: current.s3Key },
      },
    }));
  }

  async update(inspirationId: string, expectedVersion: number, input: UpdateInspirationInput): Promise<Inspiration> {
    const patch = {
      text: optionalText(input.text, 'text', 20_000),
      s3Key: input.s3Key == null ? input.s3Key : validateS3Key(input.s3Key, this.scope.tenantId, 's3Key'),
      tags: input.tags === null ? [] : cleanTags(input.tags),
      linkedProjectId: input.linkedProjectId == null ? input.linkedProjectId : assertId(input.linkedProjectId, 'proj', 'linkedProjectId'),
    };
    return mutate(this.scope, this.subject(inspirationId), expectedVersion, (current) => {
      const next = applyPatch(current, patch);
      const derived = this.tagWrites(current.tags ?? [], next.tags ?? [], inspirationId);
      if (patch.linkedProjectId) derived.push(this.projects.activeProjectCheck(patch.linkedProjectId));
      return {
        item: next,
        derived,
        event: {
          action: 'inspiration.updated',
          entityType: 'Inspiration',
          entityId: inspirationId,
          projectId: next.linkedProjectId,
          data: { fields: Object.keys(input) },
        },
      };
    });
  }

  /**
   * Deletes the inspiration and its tag items, and then the file it uploaded (under its own
   * `tenants/<t>/inspiration/<id>/` prefix); a key it merely referenced belongs to something else
   * and is left alone.
   */
  async delete(inspirationId: string, expectedVersion?: number | null): Promise<Inspiration> {
    const deleted = await remove(this.scope, this.subject(inspirationId), expectedVersion, (current) => ({
      derived: this.tagWrites(current.tags ?? [], [], inspirationId),
      event: { action: 'inspiration.deleted', entityType: 'Inspiration', entityId: inspirationId, projectId: current.linkedProjectId },
    }));
    if (deleted.s3Key?.startsWith(inspirationObjectKey(this.scope.tenantId, inspirationId, 'x').slice(0, -1))) {
      await this.scope.files
        .deleteMany([deleted.s3Key])
        .catch((err) => logger.warn({ err, inspirationId }, 'could not delete the inspiration file'));
    }
    return deleted;
  }
}
