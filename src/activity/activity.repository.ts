import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import type { Page, PageRequest } from '../infra/dynamo/store';
import { EVENT_SK_PREFIX, projectEventsPk, tenantEventsPk } from './activity.keys';
import type { ActivityEvent } from './activity.type';

/** Reads the activity streams that every mutation writes to. */
export class ActivityRepository {
  constructor(private readonly scope: Scope) {}

  /** A project's stored events after `afterEventId` (an `evt_<ULID>`), oldest first. */
  async eventsAfter(projectId: string, afterEventId: string): Promise<ActivityEvent[]> {
    const ulid = afterEventId.replace(/^evt_/, '');
    const pk = projectEventsPk(this.scope.tenantId, assertId(projectId, 'proj', 'projectId'));
    const items = await this.scope.store.queryAll({ pk, skBetween: [`${EVENT_SK_PREFIX}${ulid}`, `${EVENT_SK_PREFIX}\uffff`] }, 100_000);
    return items.filter((item) => item.eventId !== afterEventId) as ActivityEvent[];
  }

  /** Newest first. Events past the retention window are never returned. */
  list(projectId: string | null | undefined, page: PageRequest): Promise<Page<ActivityEvent>> {
    const { tenantId } = this.scope;
    const pk = projectId ? projectEventsPk(tenantId, assertId(projectId, 'proj', 'projectId')) : tenantEventsPk(tenantId);
    return this.scope.page({ pk, skPrefix: EVENT_SK_PREFIX, descending: true }, page) as Promise<Page<ActivityEvent>>;
  }
}
