import { entities, type EntityItem } from '../common/entities';
import { normalizeText } from '../common/keys';
import type { Selection } from '../common/projection';
import { mutate } from '../common/mutate';
import { applyPatch, boundedJson, maxItems, nonNegativeInt, optionalText, requireText } from '../common/validate';
import type { PageRequest } from '../infra/dynamo/store';
import type { PutValues } from '../infra/dynamo/entity';
import type { Write } from '../infra/dynamo/write';
import { ProjectChildRepository } from '../project/project-child.repository';
import { logsByAttribution, materialUses } from './log.keys';
import type { AttributionStatus } from './log.type';

type CreateLogInput = typeof entities.Log.createInput;
type UpdateLogExtractionInput = typeof entities.Log.updateInput;

/** At most this many materials per log, which keeps a log's transaction well under DynamoDB's 100 items. */
export const MAX_MATERIALS = 25;

function cleanList(list: string[] | null | undefined, field: string, max: number, maxLength = 200): string[] | undefined {
  return maxItems(list, field, max)?.map((entry) => requireText(entry, field, maxLength));
}

type LogItem = EntityItem<'Log'>;
/** A material-use item as a log's write gives it (see MaterialUse in entities.ts). */
type MaterialUse = PutValues<(typeof entities)['MaterialUse']>;

/**
 * Work logs of a project. A log's materials are mirrored as material-use items in the same
 * transaction as every write of the log, so material usage never drifts from the logs.
 */
export class LogRepository extends ProjectChildRepository<typeof entities.Log> {
  private mediaRefs(list: string[] | null | undefined): string[] | undefined {
    return maxItems(list, 'mediaRefs', 50)?.map((key) => this.scope.tenant.objectKey(key, 'mediaRefs'));
  }

  /** One material-use item's attributes per distinct normalized material of `log`, by sort key. */
  private materialUses(log: Pick<LogItem, 'logId' | 'projectId' | 'materials' | 'timeSpentMinutes'>): Map<string, MaterialUse> {
    const uses = new Map<string, MaterialUse>();
    for (const material of log.materials) {
      const values = { material: normalizeText(material), logId: log.logId };
      if (values.material === '') continue;
      const { SK } = this.scope.tenant.of(entities.MaterialUse).keyOf(values);
      uses.set(SK, { ...values, projectId: log.projectId, minutes: log.timeSpentMinutes ?? 0 });
    }
    return uses;
  }

  /** The writes that make the material-use items of `before` those of `after`. */
  private materialWrites(before: Map<string, MaterialUse>, after: Map<string, MaterialUse>): Write[] {
    const uses = this.scope.tenant.of(entities.MaterialUse);
    return [
      ...[...before].filter(([sk]) => !after.has(sk)).map(([, use]) => uses.delete(use)),
      ...[...after.values()].map((use) => uses.put(use)),
    ];
  }

  /** Logs by attribution status across the tenant's projects, newest first, with the attributes `selection` reads. */
  listByAttribution(status: AttributionStatus, page: PageRequest, selection: Selection | undefined) {
    return this.page(logsByAttribution(this.scope.tenant, status), page, selection);
  }

  override create(projectId: string, input: CreateLogInput, idempotencyKey?: string | null) {
    const logId = this.scope.newId('log');
    this.valuesOf(projectId, logId);
    const attributes = {
      projectId,
      logId,
      rawText: optionalText(input.rawText, 'rawText', 100_000) ?? undefined,
      transcriptMeta: boundedJson(input.transcriptMeta, 'transcriptMeta') ?? undefined,
      extracted: boundedJson(input.extracted, 'extracted') ?? undefined,
      confidence: boundedJson(input.confidence, 'confidence') ?? undefined,
      mediaRefs: this.mediaRefs(input.mediaRefs) ?? [],
      materials: cleanList(input.materials, 'materials', MAX_MATERIALS) ?? [],
      timeSpentMinutes: nonNegativeInt(input.timeSpentMinutes, 'timeSpentMinutes') ?? undefined,
      tags: cleanList(input.tags, 'tags', 50, 100) ?? [],
    };
    const uses = this.materialWrites(new Map(), this.materialUses(attributes));
    return this.createItem(
      attributes,
      [this.projects.activeProjectCheck(projectId), ...uses],
      { data: { materials: attributes.materials, timeSpentMinutes: attributes.timeSpentMinutes } },
      this.createRequest(idempotencyKey, { projectId, input }),
    );
  }

  /** Replaces extraction results; material-use items are rewritten to match, in the same transaction. */
  updateExtraction(projectId: string, logId: string, expectedVersion: number, input: UpdateLogExtractionInput) {
    const patch = {
      extracted: boundedJson(input.extracted, 'extracted'),
      confidence: boundedJson(input.confidence, 'confidence'),
      materials: input.materials === null ? [] : cleanList(input.materials, 'materials', MAX_MATERIALS),
      timeSpentMinutes: nonNegativeInt(input.timeSpentMinutes, 'timeSpentMinutes'),
      tags: input.tags === null ? [] : cleanList(input.tags, 'tags', 50, 100),
      mediaRefs: input.mediaRefs === null ? [] : this.mediaRefs(input.mediaRefs),
    };
    return mutate(this.scope, this.target(this.valuesOf(projectId, logId)), expectedVersion, (current) => {
      const next = applyPatch(current, patch);
      return {
        item: next,
        derived: this.materialWrites(this.materialUses(current), this.materialUses(next)),
        event: { action: 'log.extraction_updated', data: { materials: next.materials, timeSpentMinutes: next.timeSpentMinutes } },
      };
    });
  }

  /** Confirms or rejects the log's attribution: only from pending. */
  setAttribution(projectId: string, logId: string, status: AttributionStatus, expectedVersion?: number | null) {
    return this.moveStatus(this.valuesOf(projectId, logId), status, expectedVersion, { action: `log.attribution_${status}` });
  }

  /**
   * Which logs used `material` and for how many minutes in all: one query of the material-use
   * items (every page of it), then the logs through the request's batched loader.
   */
  async materialUsage(material: string) {
    const name = normalizeText(requireText(material, 'material', 200));
    const uses = entities.MaterialUse.itemsOf(await this.scope.store.queryAll(materialUses(this.scope.tenant, name)));
    const logs = await this.loadMany(uses.map((use) => ({ projectId: use.projectId, logId: use.logId })));
    return {
      material: name,
      logCount: uses.length,
      totalMinutes: uses.reduce((sum, use) => sum + use.minutes, 0),
      logs,
    };
  }
}
