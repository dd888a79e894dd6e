import { activityEvent } from '../common/activity-event';
import { idempotent, type Remember } from '../common/idempotency';
import { assertId } from '../common/ids';
import type { Selection } from '../common/projection';
import type { Listed } from '../common/repository';
import type { Scope } from '../common/scope';
import { intInRange, maxItems, optionalText, requireText } from '../common/validate';
import { AppError, badInput, conflict, ErrorCode, notFound } from '../errors';
import type { Page, PageRequest } from '../infra/dynamo/store';
import { put } from '../infra/dynamo/write';
import { entities, type EntityItem } from '../common/entities';
import type { ProjectRepository } from '../project/project.repository';
import { briefKey, briefVersionLabel, briefVersions, MAX_BRIEF_VERSION } from './brief.keys';

type BriefItem = EntityItem<'Brief'>;

/** What a person decided about a brief version (the declared ApprovalDecision). */
export type ApprovalDecision = BriefItem['approvals'][number]['decision'];

/** What a new brief version is made of (the API's CreateBriefVersionInput, brief.resolver.ts). */
export interface BriefVersionContent {
  requirements: string[];
  deliverables: string[];
  /** What changed in this version, for the changelog. */
  changelogEntry: string;
  /** The latest version the writer saw (0 for none); CONFLICT if another was added since. */
  expectedLatestVersion?: number | null;
}

/**
 * A project's planning brief. Each version is its own immutable item (`…#BRIEF#v000002`); a new
 * version copies the changelog forward and adds its entry. Only approvals are appended later.
 */
export class BriefRepository {
  constructor(
    private readonly scope: Scope,
    private readonly projects: ProjectRepository,
  ) {}

  /** The latest version (one query, newest first, limit 1), or null when there is none. */
  async latest(projectId: string): Promise<BriefItem | null> {
    assertId(projectId, 'proj', 'projectId');
    const page = await this.scope.page(briefVersions(this.scope.tenant, projectId, true), { first: 1 });
    return entities.Brief.pageOf(page).nodes[0] ?? null;
  }

  /** One version, or the latest when `version` is omitted; null when absent. */
  async get(projectId: string, version?: number | null): Promise<BriefItem | null> {
    assertId(projectId, 'proj', 'projectId');
    if (version == null) return this.latest(projectId);
    if (!Number.isInteger(version) || version < 1 || version > MAX_BRIEF_VERSION) return null;
    const item = await this.scope.items.load(briefKey(this.scope.tenant, projectId, version));
    return entities.Brief.found(item);
  }

  /** All versions, newest first, with the attributes `selection` reads (see EntityRepository.page). */
  async list(projectId: string, page: PageRequest, selection: Selection | undefined): Promise<Page<Listed<typeof entities.Brief>>> {
    assertId(projectId, 'proj', 'projectId');
    const spec = briefVersions(this.scope.tenant, projectId, true);
    return entities.Brief.pageOf(await this.scope.page(spec, page, entities.Brief.projectionOf(selection)));
  }

  /**
   * Adds the next version. Two writers racing for the same version number: one wins, the other
   * gets CONFLICT naming the version that now exists. With an idempotency key, a repeat of the
   * request returns the version the first one added (see idempotency.ts).
   */
  createVersion(projectId: string, input: BriefVersionContent, idempotencyKey?: string | null): Promise<BriefItem> {
    const request = { key: idempotencyKey, operation: 'createBriefVersion', input: { projectId, input } };
    return idempotent(this.scope, entities.Brief, request, (remember) => this.addVersion(projectId, input, remember));
  }

  private async addVersion(projectId: string, input: BriefVersionContent, remember: Remember | null) {
    maxItems(input.requirements, 'requirements', 200);
    maxItems(input.deliverables, 'deliverables', 200);
    const summary = requireText(input.changelogEntry, 'changelogEntry', 1000);
    const requirements = input.requirements.map((r) => requireText(r, 'requirements', 2000));
    const deliverables = input.deliverables.map((d) => requireText(d, 'deliverables', 2000));
    const latest = await this.latest(projectId);
    const latestVersion = latest?.version ?? 0;
    if (input.expectedLatestVersion != null && input.expectedLatestVersion !== latestVersion) {
      throw conflict('Brief of project', projectId, input.expectedLatestVersion, latestVersion);
    }
    const version = latestVersion + 1;
    if (version > MAX_BRIEF_VERSION) throw badInput(`A brief has at most ${MAX_BRIEF_VERSION} versions.`);
    const at = this.scope.now().toISOString();
    const label = briefVersionLabel(version);
    const item = this.scope.tenant.of(entities.Brief).toItem({
      projectId,
      version,
      label,
      requirements,
      deliverables,
      approvals: [],
      changelog: [...(latest?.changelog ?? []), { version, summary, by: this.scope.actor, at }],
      createdAt: at,
      updatedAt: at,
      createdBy: this.scope.actor,
    });
    if (!entities.Brief.is(item)) throw new Error('A brief item was made as another type.');
    await this.scope.commit([
      ...(remember ? [remember(item)] : []),
      put(item).ifNew(() => conflict('Brief of project', projectId, latestVersion, version)),
      this.projects.activeProjectCheck(projectId),
      activityEvent(this.scope, {
        action: entities.Brief.events.created,
        subject: { type: entities.Brief.type, id: `${projectId}/${label}`, projectId },
        data: { version, summary },
      }),
    ]);
    this.scope.items.prime(briefKey(this.scope.tenant, projectId, version), item);
    return item;
  }

  /** Appends an approval decision to one version; NOT_FOUND when that version does not exist. */
  async approve(projectId: string, version: number, decision: ApprovalDecision, comment?: string | null): Promise<BriefItem> {
    assertId(projectId, 'proj', 'projectId');
    optionalText(comment, 'comment', 2000);
    // Versions count from 1: a number below is the caller's mistake, not a version that might exist.
    intInRange(version, 'version', 1);
    const key = briefKey(this.scope.tenant, projectId, version);
    const id = `${projectId}/${briefVersionLabel(version)}`;
    if (version > MAX_BRIEF_VERSION) throw notFound('Brief', id);
    const approval = { by: this.scope.actor, decision, comment: comment ?? undefined, at: this.scope.now().toISOString() };
    await this.scope.commit([
      this.scope.tenant
        .of(entities.Brief)
        .update({ projectId, version }, ['approvals'])
        .appendToList('approvals', [approval])
        .ifExists(() => notFound('Brief', id)),
      activityEvent(this.scope, {
        action: 'brief.approval_added',
        subject: { type: entities.Brief.type, id, projectId },
        data: { version, decision, comment: approval.comment },
      }),
    ]);
    const updated = await this.scope.store.get(key);
    if (!entities.Brief.is(updated)) throw new AppError(ErrorCode.INTERNAL, 'The brief vanished after approval.');
    this.scope.items.prime(key, updated);
    return updated;
  }
}
