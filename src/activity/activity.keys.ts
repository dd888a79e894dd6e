/** The activity streams' keys are built next to the event builder, which the generic write path uses. */
export { EVENT_SK_PREFIX, eventSk, projectEventsPk, tenantEventsPk } from '../common/activity-event';
