import { normalizeText } from '../common/keys';
import { create, mutate } from '../common/mutate';
import { validateS3Key } from '../common/s3-key';
import type { Scope } from '../common/scope';
import { StateMachine } from '../common/state-machine';
import { applyPatch, boundedJson, maxItems, nonNegativeInt, optionalText, requireText } from '../common/validate';
import type { Item, Page, PageRequest } from '../infra/dynamo/store';
import { del, put, type Write } from '../infra/dynamo/write';
import { ProjectChildRepository } from '../project/project-child.repository';
import { logIndexKeys, logKey, logsByAttribution, materialUseKey, materialUses } from './log.keys';
import { AttributionStatus, type CreateLogInput, type Log, type MaterialUsage, type UpdateLogExtractionInput } from './log.type';

export const attributionStatus = new StateMachine<AttributionStatus>('Log', {
  [AttributionStatus.PENDING]: [AttributionStatus.CONFIRMED, AttributionStatus.REJECTED],
  [AttributionStatus.CONFIRMED]: [],
  [AttributionStatus.REJECTED]: [],
});

/** At most this many materials per log, which keeps a log's transaction well under DynamoDB's 100 items. */
export const MAX_MATERIALS = 25;

function cleanList(list: string[] | null | undefined, field: string, max: number, maxLength = 200): string[] | undefined {
  return maxItems(list, field, max)?.map((entry) => requireText(entry, field, maxLength));
}

/** One material-use item per distinct normalized material. */
function materialItems(scope: Scope, log: Item): Map<string, Item> {
  const items = new Map<string, Item>();
  for (const material of (log.materials as string[] | undefined) ?? []) {
    const key = materialUseKey(scope.tenantId, material, log.logId);
    if (items.has(key.SK) || normalizeText(material) === '') continue;
    items.set(key.SK, {
      ...key,
      entityType: 'MaterialUse',
      material: normalizeText(material),
      projectId: log.projectId,
      logId: log.logId,
      minutes: log.timeSpentMinutes ?? 0,
      createdAt: log.createdAt,
    });
  }
  return items;
}

/**
 * Work logs of a project. A log's materials are mirrored as material-use items in the same
 * transaction as every write of the log, so material usage never drifts from the logs.
 */
export class LogRepository extends ProjectChildRepository<Log> {
  protected readonly kind = 'Log';

  private mediaRefs(list: string[] | null | undefined): string[] | undefined {
    return maxItems(list, 'mediaRefs', 50)?.map((key) => validateS3Key(key, this.scope.tenantId, 'mediaRefs'));
  }

  /** Logs by attribution status across the tenant's projects, newest first. */
  listByAttribution(status: AttributionStatus, page: PageRequest): Promise<Page<Log>> {
    return this.scope.page(logsByAttribution(this.scope.tenantId, status), page) as Promise<Page<Log>>;
  }

  async create(projectId: string, input: CreateLogInput): Promise<Log> {
    const logId = this.scope.newId('log');
    const { key } = this.subject(projectId, logId);
    const createdAt = this.scope.now().toISOString();
    const item = {
      ...key,
      entityType: 'Log',
      logId,
      projectId,
      rawText: optionalText(input.rawText, 'rawText', 100_000) ?? undefined,
      transcriptMeta: boundedJson(input.transcriptMeta, 'transcriptMeta') ?? undefined,
      extracted: boundedJson(input.extracted, 'extracted') ?? undefined,
      confidence: boundedJson(input.confidence, 'confidence') ?? undefined,
      attributionStatus: AttributionStatus.PENDING,
      mediaRefs: this.mediaRefs(input.mediaRefs) ?? [],
      materials: cleanList(input.materials, 'materials', MAX_MATERIALS) ?? [],
      timeSpentMinutes: nonNegativeInt(input.timeSpentMinutes, 'timeSpentMinutes') ?? undefined,
      tags: cleanList(input.tags, 'tags', 50, 100) ?? [],
      ...logIndexKeys(this.scope.tenantId, { logId, attributionStatus: AttributionStatus.PENDING, createdAt }),
    };
    const uses = [...materialItems(this.scope, { ...item, createdAt }).values()].map((use) => put(use));
    return create(
      this.scope,
      item,
      {
        action: 'log.created',
        entityType: 'Log',
        entityId: logId,
        projectId,
        data: { materials: item.materials, timeSpentMinutes: item.timeSpentMinutes },
      },
      [this.projects.activeProjectCheck(projectId), ...uses],
    );
  }

  /** Replaces extraction results; material-use items are rewritten to match, in the same transaction. */
  async updateExtraction(projectId: string, logId: string, expectedVersion: number, input: UpdateLogExtractionInput): Promise<Log> {
    const patch = {
      extracted: boundedJson(input.extracted, 'extracted'),
      confidence: boundedJson(input.confidence, 'confidence'),
      materials: input.materials === null ? [] : cleanList(input.materials, 'materials', MAX_MATERIALS),
      timeSpentMinutes: nonNegativeInt(input.timeSpentMinutes, 'timeSpentMinutes'),
      tags: input.tags === null ? [] : cleanList(input.tags, 'tags', 50, 100),
      mediaRefs: input.mediaRefs === null ? [] : this.mediaRefs(input.mediaRefs),
    };
    return mutate(this.scope, this.subject(projectId, logId), expectedVersion, (current) => {
      const next = applyPatch(current, patch);
      const before = materialItems(this.scope, current);
      const after = materialItems(this.scope, next);
      const derived: Write[] = [
        ...[...before.keys()].filter((sk) => !after.has(sk)).map((SK) => del({ PK: current.PK, SK })),
        ...[...after.values()].map((use) => put(use)),
      ];
      return {
        item: next,
        derived,
        event: {
          action: 'log.extraction_updated',
          entityType: 'Log',
          entityId: logId,
          projectId,
          data: { materials: next.materials, timeSpentMinutes: next.timeSpentMinutes },
        },
      };
    });
  }

  /** Confirms or rejects the log's attribution: only from pending. */
  async setAttribution(projectId: string, logId: string, status: AttributionStatus, expectedVersion?: number | null): Promise<Log> {
    return mutate(this.scope, this.subject(projectId, logId), expectedVersion, (current) => {
      attributionStatus.assert(logId, current.attributionStatus, status);
      return {
        item: {
          ...current,
          attributionStatus: status,
          ...logIndexKeys(this.scope.tenantId, { logId, attributionStatus: status, createdAt: current.createdAt }),
        },
        event: {
          action: `log.attribution_${status}`,
          entityType: 'Log',
          entityId: logId,
          projectId,
          data: { from: current.attributionStatus, to: status },
        },
      };
    });
  }

  /**
   * Which logs used `material` and for how many minutes in all: one query of the material-use
   * items (every page of it), then the logs through the request's batched loader.
   */
  async materialUsage(material: string): Promise<MaterialUsage> {
    const name = normalizeText(requireText(material, 'material', 200));
    const uses = await this.scope.store.queryAll(materialUses(this.scope.tenantId, name));
    const logs = await this.scope.items.loadMany(uses.map((u) => logKey(this.scope.tenantId, u.projectId, u.logId)));
    return {
      material: name,
      logCount: uses.length,
      totalMinutes: uses.reduce((sum, u) => sum + (u.minutes ?? 0), 0),
      logs: logs.filter((l): l is Log & Item => l != null && !(l instanceof Error)),
    };
  }
}
