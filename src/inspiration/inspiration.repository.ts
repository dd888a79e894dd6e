import { checkedRef } from '../common/fields';
import { assertId } from '../common/ids';
import { normalizeText } from '../common/keys';
import { mutate, remove } from '../common/mutate';
import type { Selection } from '../common/projection';
import { EntityRepository } from '../common/repository';
import { entities, type EntityItem } from '../common/entities';
import type { Scope } from '../common/scope';
import { applyPatch, maxItems, optionalText, requireText } from '../common/validate';
import { notFound } from '../errors';
import { logger } from '../logger';
import type { PageRequest } from '../infra/dynamo/store';
import type { Write } from '../infra/dynamo/write';
import type { ProjectRepository } from '../project/project.repository';
import { Uploads } from '../common/files/upload';
import { UploadStatus } from '../common/files/upload.type';
import { invalidTransition } from '../errors';
import { allInspirations, inspirationObjectKey, inspirationsByTag } from './inspiration.keys';

type CreateInspirationInput = typeof entities.Inspiration.createInput;
type UpdateInspirationInput = typeof entities.Inspiration.updateInput;

function cleanTags(tags: string[] | null | undefined): string[] | undefined {
  const list = maxItems(tags, 'tags', 30)?.map((t) => normalizeText(requireText(t, 'tags', 100)));
  return list ? [...new Set(list)] : undefined;
}

/** An inspiration file about to be uploaded (the API's RequestInspirationUploadInput, inspiration.resolver.ts). */
export interface InspirationUploadRequest {
  type: EntityItem<'Inspiration'>['type'];
  fileName: string;
  contentType: string;
  size: number;
  text?: string | null;
  tags?: string[] | null;
  linkedProjectId?: string | null;
}

/** What every new inspiration is made of, however its file comes (a create's input or an upload request). */
type NewInspiration = Pick<InspirationUploadRequest, 'type' | 'text' | 'tags' | 'linkedProjectId'>;

/** Inspiration of a tenant, with one tag item per tag written in the same transaction. */
export class InspirationRepository extends EntityRepository<typeof entities.Inspiration> {
  private readonly uploads: Uploads;

  constructor(
    scope: Scope,
    private readonly projects: ProjectRepository,
  ) {
    super(scope, entities.Inspiration);
    this.uploads = new Uploads(scope.files, scope.now);
  }

  private values(inspirationId: string) {
    return { inspirationId: assertId(inspirationId, 'insp', 'inspirationId') };
  }

  /**
   * A new inspiration's attributes from what the client sent (type, text, tags, the linked
   * project) and `file`, what the caller knows of its file, with the writes that go with it: its
   * tag items and, when it is linked, the check that the project is active. Throws BAD_USER_INPUT
   * for a text, tag or project id that is not valid.
   */
  private newItem<F extends object>(inspirationId: string, input: NewInspiration, file: F) {
    const tags = cleanTags(input.tags) ?? [];
    const linkedProjectId = input.linkedProjectId
      ? checkedRef(this.model.attributes.linkedProjectId, input.linkedProjectId, 'linkedProjectId')
      : undefined;
    const text = optionalText(input.text, 'text', 20_000) ?? undefined;
    const item = { inspirationId, type: input.type, text, ...file, tags, linkedProjectId };
    const derived = this.tagWrites([], tags, inspirationId);
    if (linkedProjectId) derived.push(this.projects.activeProjectCheck(linkedProjectId));
    return { item, derived };
  }

  private tagWrites(before: string[], after: string[], inspirationId: string): Write[] {
    const tag = this.scope.tenant.of(entities.InspirationTag);
    return [
      ...before.filter((t) => !after.includes(t)).map((t) => tag.delete({ tag: t, inspirationId })),
      ...after.filter((t) => !before.includes(t)).map((t) => tag.put({ tag: t, inspirationId })),
    ];
  }

  get(inspirationId: string) {
    return this.load(this.values(inspirationId));
  }

  /**
   * Newest first; with a tag, through that tag's items and one batched read of the inspiration
   * (whole items: the request's item loader keeps only those), else with the attributes
   * `selection` reads (see EntityRepository.page).
   */
  async list(tag: string | null | undefined, page: PageRequest, selection: Selection | undefined) {
    const { tenant } = this.scope;
    if (!tag) return this.page(allInspirations(tenant), page, selection);
    const tags = entities.InspirationTag.pageOf(await this.scope.page(inspirationsByTag(tenant, requireText(tag, 'tag', 100)), page));
    return tags.mapMany(async (found) => {
      const loaded = await this.loadMany(found.map((t) => ({ inspirationId: t.inspirationId })));
      const byId = new Map(loaded.map((item) => [item.inspirationId, item]));
      return found.map((t) => byId.get(t.inspirationId) ?? null);
    });
  }

  /** The inspiration linked to one project, newest first: one query of the sparse project index per page, as `list` reads. */
  ofProject(projectId: string, page: PageRequest, selection: Selection | undefined) {
    const linkedProjectId = assertId(projectId, 'proj', 'projectId');
    return this.page(this.keys.query('byProject', { linkedProjectId }, { descending: true }), page, selection);
  }

  create(input: CreateInspirationInput, idempotencyKey?: string | null) {
    const inspirationId = this.scope.newId('insp');
    const s3Key = input.s3Key == null ? undefined : this.scope.tenant.objectKey(input.s3Key, 's3Key');
    const { item, derived } = this.newItem(inspirationId, input, { s3Key });
    return this.createItem(item, derived, { data: { type: item.type, tags: item.tags } }, this.createRequest(idempotencyKey, { input }));
  }

  /**
   * Creates an inspiration whose file is uploaded with the returned presigned PUT (type and size
   * bound). Its `url` stays null until `confirmUpload` has checked the object.
   */
  async requestUpload(input: InspirationUploadRequest, idempotencyKey?: string | null) {
    this.uploads.check(input);
    const inspirationId = this.scope.newId('insp');
    const pending = this.uploads.start(
      inspirationObjectKey(this.scope.tenant, inspirationId, requireText(input.fileName, 'fileName', 255)),
      input,
    );
    const { item, derived } = this.newItem(inspirationId, input, {
      s3Key: pending.s3Key,
      fileStatus: pending.status,
      size: pending.size,
      contentType: pending.contentType,
      uploadExpiresAt: pending.uploadExpiresAt,
    });
    const inspiration = await this.createItem(
      item,
      derived,
      { action: 'inspiration.upload_requested', data: { s3Key: pending.s3Key } },
      { key: idempotencyKey, operation: 'requestInspirationUpload', input: { input } },
    );
    // A repeat of the request gets the first request's inspiration, and a fresh URL for its upload.
    const upload = await this.uploads.target(
      inspiration.inspirationId === inspirationId || !inspiration.s3Key
        ? pending
        : {
            ...pending,
            s3Key: inspiration.s3Key,
            size: inspiration.size ?? pending.size,
            contentType: inspiration.contentType ?? pending.contentType,
          },
    );
    return { inspiration, upload };
  }

  /** Checks the uploaded object (see Uploads.confirm) and marks the file READY. */
  async confirmUpload(inspirationId: string) {
    const target = this.target(this.values(inspirationId));
    const read = await this.scope.store.get(this.keys.keyOf(target.values));
    if (!this.model.is(read)) throw notFound('Inspiration', inspirationId);
    if (read.fileStatus !== UploadStatus.UPLOADING)
      throw invalidTransition('Inspiration', inspirationId, read.fileStatus ?? 'no file', UploadStatus.READY);
    if (!read.s3Key) throw invalidTransition('Inspiration', inspirationId, 'no file', UploadStatus.READY);
    const confirmed = await this.uploads.confirm({
      s3Key: read.s3Key,
      size: read.size,
      contentType: read.contentType,
      uploadExpiresAt: read.uploadExpiresAt,
    });
    return mutate(this.scope, target, read.version, (current) => ({
      item: { ...current, fileStatus: confirmed.status, uploadExpiresAt: confirmed.uploadExpiresAt },
      event: { action: 'inspiration.upload_confirmed', data: { s3Key: current.s3Key } },
    }));
  }

  update(inspirationId: string, expectedVersion: number, input: UpdateInspirationInput) {
    const patch = {
      text: optionalText(input.text, 'text', 20_000),
      s3Key: input.s3Key == null ? input.s3Key : this.scope.tenant.objectKey(input.s3Key, 's3Key'),
      tags: input.tags === null ? [] : cleanTags(input.tags),
      linkedProjectId:
        input.linkedProjectId == null
          ? input.linkedProjectId
          : checkedRef(this.model.attributes.linkedProjectId, input.linkedProjectId, 'linkedProjectId'),
    };
    return mutate(this.scope, this.target(this.values(inspirationId)), expectedVersion, (current) => {
      const next = applyPatch(current, patch);
      const derived = this.tagWrites(current.tags, next.tags, inspirationId);
      if (patch.linkedProjectId) derived.push(this.projects.activeProjectCheck(patch.linkedProjectId));
      return {
        item: next,
        derived,
        event: { action: this.model.events.updated, data: { fields: Object.keys(input) } },
      };
    });
  }

  /**
   * Deletes the inspiration and its tag items, and then the file it uploaded (under its own
   * `tenants/<t>/inspiration/<id>/` prefix); a key it merely referenced belongs to something else
   * and is left alone.
   */
  async delete(inspirationId: string, expectedVersion?: number | null) {
    const deleted = await remove(this.scope, this.target(this.values(inspirationId)), expectedVersion, (current) => ({
      derived: this.tagWrites(current.tags, [], inspirationId),
      event: { action: this.model.events.deleted },
    }));
    if (deleted.s3Key?.startsWith(inspirationObjectKey(this.scope.tenant, inspirationId, 'x').slice(0, -1))) {
      await this.scope.files
        .deleteMany([deleted.s3Key])
        .catch((err) => logger.warn({ err, inspirationId }, 'could not delete the inspiration file'));
    }
    return deleted;
  }
}
