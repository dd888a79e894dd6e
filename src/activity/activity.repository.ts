import { entities, type EntityItem } from '../common/entities';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import { streams } from '../common/streams';
import type { Page, PageRequest } from '../infra/dynamo/store';
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

  /** Newest first. Events past the retention window are never returned. */
  async list(projectId: string | null | undefined, page: PageRequest): Promise<Page<ActivityItem>> {
    const { tenantId } = this.scope;
    const spec = projectId ? projectActivity(tenantId, assertId(projectId, 'proj', 'projectId')) : tenantActivity(tenantId);
    return entities.ProjectEvent.pageOf(await this.scope.page(spec, page));
  }
}
