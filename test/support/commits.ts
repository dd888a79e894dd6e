import type { StoreApi } from '../../src/infra/store-api';
import { restoredAfter } from './fixtures';

/**
 * Watches (and passes on) the transactions of a server's store in this process, and notes when
 * each job's creation committed: the wall clock (Date.now) as the transaction that wrote its
 * JOB_CREATED event was answered, when its work became claimable. A push's delay is measured
 * from there, as bench/latency.ts measures commit → subscriber: what comes before (the request's
 * way in, the store's own calls) is no part of it, and a loaded machine stretches that alone to
 * hundreds of ms. `committedAt` throws for a job whose creation it did not see commit. The store
 * gets its own transactOnce back once the test is done (restoredAfter).
 */
export function watchJobCreations(store: StoreApi): { committedAt(jobId: string): number } {
  const committedAt = new Map<string, number>();
  const send = store.transactOnce.bind(store);
  restoredAfter(jest.spyOn(store, 'transactOnce')).mockImplementation(async (writes) => {
    const outcome = await send(writes);
    const at = Date.now();
    if (outcome === 'committed') {
      for (const w of writes) if (w.isEvent && w.item?.type === 'JOB_CREATED') committedAt.set(String(w.item.jobId), at);
    }
    return outcome;
  });
  return {
    committedAt(jobId) {
      const at = committedAt.get(jobId);
      if (at === undefined) throw new Error(`no commit of job ${jobId}'s creation was seen`);
      return at;
    },
  };
}
