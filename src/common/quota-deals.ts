import { AsyncLocalStorage } from 'node:async_hooks';
import { contended, type CommitStore } from '../infra/dynamo/committer';
import type { Key } from '../infra/dynamo/table';
import { type Item, update } from '../infra/dynamo/write';

/*
 * The deals of a sharded quota's room (src/common/quota.ts, "Sharded counters"): when a charge
 * finds no room on its shard, a deal reads every shard's count and sets each shard's room to its
 * share of what the limit leaves. A deal writes every shard, so two deals of one counter at once
 * would conflict: in this process one deal of a counter runs at a time, and the charges that ask
 * meanwhile wait for the next, which answers them all (a burst of creates at the limit costs a few
 * deals, not one each). The next deal starts only once the charges the last one gave room to were
 * sent again (or after SETTLE_MS): a deal resets every shard's room from the counts, so dealing
 * before they took theirs would hand the same room to the next asker, then back, and no charge
 * would ever commit. Deals of other processes are met by the deal's conditions and retried.
 */

/** The attribute in which a sharded quota's shard keeps the room dealt to it. */
export const roomOf = (quota: string) => `${quota}Room`;
/** The attribute in which a sharded quota's shard keeps the limit its room was dealt under. */
export const dealtOf = (quota: string) => `${quota}Dealt`;

/** Which counter a deal deals: the quota, its shards' keys (shard k at k) and the limit in force. */
export interface Counter {
  quota: string;
  keys: readonly Key[];
  limit: number;
}

/** A charge asking for room: its shard, how much, and its refusal past the limit. */
export interface Ask {
  shard: number;
  amount: number;
  refuse: () => Error;
}

interface Waiting extends Ask {
  /** Runs a function in the asynchronous context of the charge that asked (its request's budget, its trace). */
  inContext: <R>(fn: () => R) => R;
  /** Answers the ask with the call its charge makes once it was sent again. */
  resolve(sent: () => void): void;
  reject(error: unknown): void;
}

/** Deals one counter's reads and transactions try before its asks get CONTENDED. */
const DEAL_ROUNDS = 8;

/** How long a deal waits at most for the charges of the deal before it to be sent again. */
const SETTLE_MS = 1000;

/** The condition failure of a deal whose counts moved since they were read. */
class DealMoved extends Error {}

/** Each store's counters with a deal running, and the asks waiting for the next. */
const queues = new WeakMap<CommitStore, Map<string, { waiting: Waiting[] }>>();

/**
 * Deals `counter`'s room for `ask`: resolves once room may be there for it (the charge is then
 * sent again, and asks again if another charge took the room), rejects with `ask.refuse()` when
 * the counts read and its amount pass the limit, with CONTENDED when other processes' deals or
 * charges kept moving the counts for DEAL_ROUNDS deals, or with what a read or transaction threw.
 */
export function dealRoom(store: CommitStore, counter: Counter, ask: Ask): Promise<() => void> {
  let byCounter = queues.get(store);
  if (!byCounter) queues.set(store, (byCounter = new Map()));
  const id = `${counter.keys[0].PK}\u0000${counter.quota}\u0000${counter.limit}`;
  const running = byCounter.get(id);
  return new Promise<() => void>((resolve, reject) => {
    const waiting = { ...ask, inContext: AsyncLocalStorage.snapshot(), resolve, reject };
    if (running) {
      running.waiting.push(waiting);
      return;
    }
    const queue = { waiting: [waiting] };
    byCounter.set(id, queue);
    void drain(store, counter, queue).finally(() => byCounter.delete(id));
  });
}

/** Deals for the asks of `queue` until none waits: each deal takes every ask that came before it started. */
async function drain(store: CommitStore, counter: Counter, queue: { waiting: Waiting[] }): Promise<void> {
  while (queue.waiting.length > 0) {
    const asks = queue.waiting.splice(0);
    let sent: Promise<unknown>[] = [];
    try {
      // In the context of the latest ask, whose request has the most of its budget left.
      sent = await asks[asks.length - 1].inContext(() => deal(store, counter, asks));
    } catch (error) {
      for (const ask of asks) ask.reject(error);
    }
    if (sent.length === 0) continue;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(sent), new Promise((r) => (timer = setTimeout(r, SETTLE_MS)))]);
    clearTimeout(timer);
  }
}

const numberIn = (item: Item | null, attribute: string) => {
  const value = item?.[attribute];
  return typeof value === 'number' ? value : 0;
};

/**
 * One deal for `asks`, in their order: an ask whose amount the counts read leave no room for is
 * refused; one that fits what is left gets its amount on its shard; one that fits only without
 * the room given to the asks before it waits for the next deal (its charge comes back, and the
 * counts will say whether those asks took it). What is left after the grants is spread evenly.
 * Written on condition that no count grew since the read; read and written again when one did.
 * Resolves with a promise for each ask answered with room, settled once its charge was sent again.
 */
async function deal(store: CommitStore, { quota, keys, limit }: Counter, asks: readonly Waiting[]): Promise<Promise<void>[]> {
  let lost: unknown = contended();
  for (let round = 0; round < DEAL_ROUNDS; round++) {
    const read = await store.batchGet(keys);
    const counts = read.map((item) => numberIn(item, quota));
    const used = counts.reduce((a, b) => a + b, 0);
    const refused = asks.filter((ask) => used + ask.amount > limit);
    const rooms = keys.map(() => 0);
    let spare = limit - used;
    for (const ask of asks) {
      if (used + ask.amount > limit || ask.amount > spare) continue;
      rooms[ask.shard] += ask.amount;
      spare -= ask.amount;
    }
    if (refused.length === asks.length) {
      for (const ask of asks) ask.reject(ask.refuse());
      return [];
    }
    const base = Math.floor(spare / keys.length);
    const writes = keys.map((key, k) =>
      update(key)
        .setNumber(roomOf(quota), rooms[k] + base + (k < spare % keys.length ? 1 : 0))
        .setNumber(dealtOf(quota), limit)
        .ifAtMost(quota, counts[k], () => new DealMoved()),
    );
    try {
      const outcome = await store.transactOnce(writes);
      if (outcome === 'committed') {
        const sent: Promise<void>[] = [];
        for (const ask of asks) {
          if (refused.includes(ask)) ask.reject(ask.refuse());
          else sent.push(new Promise<void>((done) => ask.resolve(done)));
        }
        return sent;
      }
      lost = outcome.reason === 'throttled' ? outcome.error : contended();
    } catch (error) {
      if (!(error instanceof DealMoved)) throw error;
    }
    await new Promise((r) => setTimeout(r, 2 ** round * (1 + Math.random())));
  }
  throw lost;
}
