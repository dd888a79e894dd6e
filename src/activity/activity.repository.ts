import { entities, type EntityItem } from '../common/entities';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { maxItems, requireText } from '../common/validate';
import { badInput } from '../errors';
import type { Page, PageRequest } from '../infra/dynamo/store';
import { projectActivity, tenantActivity } from './activity.keys';

/** The most actions one timeline query may name (each costs one query per page). */
export const MAX_TIMELINE_TYPES = 10;

/**
 * The newest events of a stream that positionOfEvent reads when the index by id does not have an
 * event (yet): one page of a replay, so the fallback costs what one page of a resume costs.
 */
const RECENT_EVENTS = 100;

/** A stored activity event (a project's, or the tenant's own). */
export type ActivityItem = EntityItem<'ProjectEvent'> & { position?: number };

/** Reads the activity streams that every mutation writes to. */
export class ActivityRepository {
  constructor(private readonly scope: Scope) {}

  /**
   * The position of the stored event `eventId` in its project's stream, or null when this
   * project of the caller's tenant has no such event stored (any more; or never: another
   * project's or another tenant's id is not found under these keys). For clients that still
   * resume with `afterEventId`. At most two bounded reads, never the whole stream: one keyed
   * query of the project's events by id (the byEventId index; concurrent lookups of one id share
   * it), and, when that finds nothing, the newest page of the stream, read strongly consistent.
   * The index is updated asynchronously, so an event that committed a moment ago (a client
   * resuming right after it was delivered) may not be in it yet; and events stored before the
   * index existed never are. Those are found among the newest events; an older one not in the
   * index is reported as history lost by the replay. Throws BAD_USER_INPUT for a malformed id.
   */
  async positionOfEvent(projectId: string, eventId: string): Promise<number | null> {
    const { tenant, store } = this.scope;
    const model = entities.ProjectEvent;
    const values = { projectId: assertId(projectId, 'proj', 'projectId'), eventId: assertId(eventId, 'evt', 'afterEventId') };
    const positionIn = (items: ActivityItem[]): number | null => {
      for (const item of items) if (item.eventId === eventId && typeof item.position === 'number') return item.position;
      return null;
    };
    // Shared with concurrent resumes after the same event (a reconnecting fleet): an event's
    // position never changes, and a read that started too early to see it only sends this one to
    // the fresh read below.
    const indexed = positionIn(model.itemsOf(await this.scope.shared.page(tenant.of(model).query('byEventId', values), 1)));
    if (indexed !== null) return indexed;
    const stream = tenant.projectActivity(values.projectId);
    return positionIn(model.itemsOf(await store.queryFirst({ ...stream.after(0), descending: true }, RECENT_EVENTS)));
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
    const from = filter.from?.toISOString();
    const to = filter.to?.toISOString();
    if (from && to && from >= to) throw badInput('from must be before to.', 'from');
    const types = [...new Set(maxItems(filter.types, 'types', MAX_TIMELINE_TYPES) ?? [])].map((t) => requireText(t, 'types', 100));
    const model = entities.ProjectEvent;
    const events = this.scope.tenant.of(model);
    if (types.length <= 1) {
      const spec = types.length
        ? events.query('timelineByAction', { action: types[0] }, { descending: true, range: { from, to } })
        : events.query('timeline', {}, { descending: true, range: { from, to } });
      return model.pageOf(await this.scope.page(spec, page));
    }
    const merged = await this.scope.pageMerged(
      `timeline:${JSON.stringify([types.sort(), from ?? '', to ?? ''])}`,
      (below) => types.map((action) => events.query('timelineByAction', { action }, { descending: true, range: { from, to, below } })),
      model.sortAttributeOf('timelineByAction'),
      page,
    );
    return model.pageOf(merged);
  }

  /** Newest first. Events past the retention window are never returned. */
  async list(projectId: string | null | undefined, page: PageRequest): Promise<Page<ActivityItem>> {
    const { tenant } = this.scope;
    const spec = projectId ? projectActivity(tenant, assertId(projectId, 'proj', 'projectId')) : tenantActivity(tenant);
    return entities.ProjectEvent.pageOf(await this.scope.page(spec, page));
  }
}
