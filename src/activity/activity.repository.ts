import { entities, type EntityItem } from '../common/entities';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { streams } from '../common/streams';
import { maxItems, requireText } from '../common/validate';
import { badInput } from '../errors';
import type { Page, PageRequest } from '../infra/dynamo/store';

/** The most actions one timeline query may name (each costs one query per page). */
export const MAX_TIMELINE_TYPES = 10;
import { projectActivity, tenantActivity } from './activity.keys';

/** A stored activity event (a project's, or the tenant's own). */
export type ActivityItem = EntityItem<'ProjectEvent'> & { position?: number };

/** Reads the activity streams that every mutation writes to. */
export class ActivityRepository {
  constructor(private readonly scope: Scope) {}

  /** A project's stored events with a position in (after, until], in position order. */
  async eventsAfter(projectId: string, after: number, until?: number): Promise<ActivityItem[]> {
    const stream = streams.projectActivity(this.scope.tenantId, assertId(projectId, 'proj', 'projectId'));
    return (await this.scope.store.queryAll(stream.after(after, until), 100_000)).filter((item) => entities.ProjectEvent.is(item));
  }

  /**
   * The position of the stored event `eventId` in its project's stream, or null when it is not
   * stored (any more). For clients that still resume with `afterEventId`: it reads the project's
   * whole retained stream, which positions avoid.
   */
  async positionOfEvent(projectId: string, eventId: string): Promise<number | null> {
    const events = await this.eventsAfter(projectId, 0);
    const found = events.find((event) => event.eventId === eventId);
    return found?.position ?? null;
  }

  /**
   * The tenant's activity across its projects (and its own), newest first, within [from, to) and
   * optionally of some actions only: one query of the timeline index a page, or of the action's
   * timeline for one action; for several actions one query per action, merged by time.
   */
  async timeline(
    filter: { from?: Date | null; to?: Date | null; types?: string[] | null },
    page: PageRequest,
  ): Promise<Page<ActivityItem>> {
    const { tenantId } = this.scope;
    const from = filter.from?.toISOString();
    const to = filter.to?.toISOString();
    if (from && to && from >= to) throw badInput('from must be before to.', 'from');
    const types = [...new Set(maxItems(filter.types, 'types', MAX_TIMELINE_TYPES) ?? [])].map((t) => requireText(t, 'types', 100));
    const model = entities.ProjectEvent;
    if (types.length <= 1) {
      const spec = types.length
        ? model.query(tenantId, 'timelineByAction', { action: types[0] }, { descending: true, range: { from, to } })
        : model.query(tenantId, 'timeline', {}, { descending: true, range: { from, to } });
      return model.pageOf(await this.scope.page(spec, page));
    }
    const merged = await this.scope.store.queryMerged(
      tenantId,
      `timeline:${JSON.stringify([types.sort(), from ?? '', to ?? ''])}`,
      (below) =>
        types.map((action) => model.query(tenantId, 'timelineByAction', { action }, { descending: true, range: { from, to, below } })),
      model.sortAttributeOf('timelineByAction'),
      page,
    );
    return model.pageOf(merged);
  }

  /** Newest first. Events past the retention window are never returned. */
  async list(projectId: string | null | undefined, page: PageRequest): Promise<Page<ActivityItem>> {
    const { tenantId } = this.scope;
    const spec = projectId ? projectActivity(tenantId, assertId(projectId, 'proj', 'projectId')) : tenantActivity(tenantId);
    return entities.ProjectEvent.pageOf(await this.scope.page(spec, page));
  }
}
