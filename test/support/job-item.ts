import { entities } from '../../src/common/entities';

/**
 * A stored job item of `tenantId` as the declaration derives it (keys and index attributes), for
 * tests that write jobs straight to the table: a one-step plan at its first attempt, nothing done
 * yet, with `values` naming what a test cares about (its id, project, kind, status, version, times).
 */
export function storedJob(
  tenantId: string,
  values: { jobId: string; projectId: string; kind: string; status: 'QUEUED' | 'RUNNING'; version: number; at: string },
) {
  const { at, ...rest } = values;
  return entities.Job.toItem(tenantId, {
    ...rest,
    plan: [{ name: 'a', order: 1 }],
    attempts: { a: 1 },
    progress: 0,
    completedSteps: 0,
    failedSteps: 0,
    maxAttempts: 3,
    createdAt: at,
    updatedAt: at,
    createdBy: 'artist',
  });
}
