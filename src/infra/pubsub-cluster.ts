import calculateSlot from 'cluster-key-slot';
import Redis, { type Cluster, ReplyError } from 'ioredis';
import { errorMessage } from '../guards';
import { logger } from '../logger';
import { classify, isOutage, serviceUnavailable } from './dependency';
import type { Metrics } from './metrics';
import type { OutageLog } from './outage';
import {
  CATCH_UP,
  deliverMessage,
  encodeMessage as encode,
  type EventBus,
  IN_EFFECT,
  type Listeners,
  redisOutcome,
  retryPause,
  bounded,
  TopicListening,
} from './bus-core';
import { type ClusterTarget, clusterClient, endConnection, ended, openSockets } from './redis-target';

/** Hash slots of a Redis Cluster. */
const SLOTS = 16_384;

/**
 * The channel groups of the bus on a Redis Cluster. Every instance must use the same number (the
 * channel of a topic follows from it), so it is fixed here, not a setting. 48 groups put 16 on
 * each of 3 masters, 8 on each of 6, 4 on each of 12: the same count on every master wherever the
 * masters hold equal slot ranges, and within one group of it otherwise.
 */
export const CHANNEL_GROUPS = 48;

/**
 * The hash tag of each group: the first of `g.0`, `g.1`, … whose slot lies in the group's
 * sixteenth-of-a-48th of the slot space (group g: slots from g × 16384 / 48 on). So the groups'
 * slots are spread evenly over the whole slot space, and a master holding a third of the slots
 * holds a third of the groups; hashing the tags alone would leave that to chance.
 */
const GROUP_TAGS: readonly string[] = Array.from({ length: CHANNEL_GROUPS }, (_, group) => {
  const low = Math.ceil((group * SLOTS) / CHANNEL_GROUPS);
  const high = Math.ceil(((group + 1) * SLOTS) / CHANNEL_GROUPS);
  for (let k = 0; ; k++) {
    const tag = `${group}.${k}`;
    const slot = calculateSlot(tag);
    if (slot >= low && slot < high) return tag;
  }
});

/** The Redis channel of channel group `group`: `artissist:bus:{<tag>}`, in the group's slot. */
export function groupChannel(group: number): string {
  return `artissist:bus:{${GROUP_TAGS[group]}}`;
}

/** The channel group a topic's events travel in: its CRC16 (Redis's slot function) modulo the groups. */
export function groupOf(topic: string): number {
  return calculateSlot(topic) % CHANNEL_GROUPS;
}

/** The slot of a channel group's channel. */
export function groupSlot(group: number): number {
  return calculateSlot(groupChannel(group));
}

/** How often each group checks that it is still subscribed at its slot's master (see ChannelGroup.check). */
const SLOT_CHECK_MS = 1_000;
/** How long a group waits for a connection and its SSUBSCRIBE's answer before it tries again. */
const SUBSCRIBE_TIMEOUT_MS = 2_000;
/** Where each slot's master is, as the cluster answered CLUSTER SLOTS: `host:port` by slot. */
type SlotMap = (string | undefined)[];

/**
 * The masters of the slots, asked of the cluster now (CLUSTER SLOTS, through the cluster client,
 * which sends it to a node that answers). Rejects when no node answers.
 */
async function readSlotMap(cluster: Cluster): Promise<SlotMap> {
  // Each range is [start, end, [host, port, id, …] of its master, …its replicas]; ioredis types the answer as unknown.
  const ranges: unknown = await cluster.cluster('SLOTS');
  const map: SlotMap = new Array(SLOTS);
  for (const range of Array.isArray(ranges) ? ranges : []) {
    if (!Array.isArray(range) || !Array.isArray(range[2])) continue;
    const [start, end, [host, port]] = range;
    if (typeof start !== 'number' || typeof end !== 'number') continue;
    for (let slot = start; slot <= end; slot++) map[slot] = `${host}:${port}`;
  }
  return map;
}

/**
 * What the groups share: the cluster client, the listeners of this process, the slot map (one
 * read of CLUSTER SLOTS serves every group that asks while it is under way) and where failures
 * are told.
 */
class GroupContext {
  private reading: Promise<SlotMap> | undefined;
  closed = false;
  /** The groups' connections not yet ended: held, or being made (see ChannelGroup.subscribeAt). */
  readonly connections = new Set<Redis>();

  constructor(
    readonly cluster: Cluster,
    readonly target: ClusterTarget,
    readonly listeners: Listeners,
    readonly outage: OutageLog,
  ) {}

  /** The slot map, read afresh (or the read under way, which started after the caller's reason to ask). */
  slotMap(): Promise<SlotMap> {
    this.reading ??= readSlotMap(this.cluster).finally(() => (this.reading = undefined));
    return this.reading;
  }
}

/**
 * One channel group's sharded subscription on this instance: a connection of its own to the
 * master of the group's slot, subscribed (SSUBSCRIBE) to the group's one channel. Each group is
 * subscribed for as long as the bus is open, whatever the listeners: so there is no SSUBSCRIBE or
 * SUNSUBSCRIBE per topic, and a listener's subscription is in effect as soon as its group's is.
 *
 * Why not ioredis's `shardedSubscribers` (ioredis 5.11, read from its source): it resubscribes
 * after a topology change by sending SSUBSCRIBE without waiting for the answer and then reports
 * its subscribers ready, so nothing tells when the subscription is in effect again; an SSUBSCRIBE
 * answered MOVED is never settled (DataHandler drops the command and emits `moved`); and the
 * `sunsubscribe` a master pushes when a slot migrates away is not resubscribed until a later
 * refresh of the slot map finds a change, and meanwhile may be taken as the answer to a command
 * under way. Here every one of those is the group's own, explicit business:
 *
 *   - The connection closes (the master died, a failover, a network fault), errs (any error,
 *     which includes ioredis's complaint about a reply no command asked for: the pushed
 *     `sunsubscribe`), or answers MOVED: the group is lost.
 *   - Every SLOT_CHECK_MS the group compares its connection's node with the slot's master in the
 *     cluster's slot map; a slot that moved (a migration, a failover the connection has not seen
 *     yet) loses the group too. This catches a `sunsubscribe` that ioredis did not report.
 *   - A lost group reads the slot map afresh, connects to the slot's master, subscribes, and once
 *     Redis has answered the SSUBSCRIBE (the subscription is in effect) hands CATCH_UP to every
 *     listener of the group's topics: each stream then reads the store from the last position it
 *     delivered before it goes on live (replay.ts), so what was published while the group was not
 *     subscribed is delivered once, in order. It tries again after a pause (retryPause) until it
 *     succeeds or the bus closes.
 */
class ChannelGroup {
  readonly channel: string;
  readonly slot: number;
  private connection: Redis | undefined;
  /** `host:port` of the master the connection is subscribed at. */
  private node: string | undefined;
  private subscribing: Promise<void> | undefined;
  /** How many times the group was subscribed again after it was lost (tests and metrics read it). */
  resubscribes = 0;

  constructor(
    readonly group: number,
    private readonly context: GroupContext,
  ) {
    this.channel = groupChannel(group);
    this.slot = groupSlot(group);
  }

  /** True while the group's SSUBSCRIBE is in effect on its connection. */
  get subscribed(): boolean {
    return this.connection !== undefined;
  }

  /** Subscribes the group unless it is subscribed or subscribing; resolves once it is (or the bus closed). */
  subscribe(): Promise<void> {
    if (this.subscribed) return IN_EFFECT;
    this.subscribing ??= this.subscribeUntilDone().finally(() => (this.subscribing = undefined));
    return this.subscribing;
  }

  private async subscribeUntilDone(): Promise<void> {
    const { context } = this;
    for (let attempt = 0; !context.closed; attempt++) {
      const pause = retryPause(attempt);
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause).unref());
      if (context.closed) return;
      try {
        const node = (await context.slotMap())[this.slot];
        if (!node) throw new Error(`no master holds slot ${this.slot}`);
        await this.subscribeAt(node);
        return;
      } catch (error) {
        // Lost again, refused, or not yet failed over: counted with Redis's other failures, and tried again.
        context.outage.failure('redis', redisOutcome(error));
        // A refusal that no failover or migration explains (an ACL that forbids the channel) is worth a line.
        if (error instanceof ReplyError && !/^(MOVED|TRYAGAIN|CLUSTERDOWN|LOADING)/.test(errorMessage(error))) {
          logger.warn({ err: error, channel: this.channel }, 'redis refused the SSUBSCRIBE of a channel group');
        }
      }
    }
  }

  /** Connects to `node`, subscribes, and hands the group's listeners CATCH_UP once Redis answered. */
  private async subscribeAt(node: string): Promise<void> {
    const { context } = this;
    const [host, port] = [node.slice(0, node.lastIndexOf(':')), Number(node.slice(node.lastIndexOf(':') + 1))];
    const connection = new Redis({
      host,
      port,
      username: context.target.username,
      password: context.target.password,
      lazyConnect: true,
      // The group reconnects itself, to whichever master holds its slot then: never ioredis.
      retryStrategy: () => null,
      autoResubscribe: false,
      enableOfflineQueue: false,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      connectTimeout: SUBSCRIBE_TIMEOUT_MS,
    });
    context.connections.add(connection);
    connection.once('end', () => context.connections.delete(connection));
    // Until the group holds it, a failure rejects the attempt; once it holds it, a failure loses the group.
    const failed = new Promise<never>((_, reject) => {
      connection.once('moved', () => reject(new Error(`slot ${this.slot} moved from ${node}`)));
      connection.once('close', () => reject(new Error(`the connection to ${node} closed`)));
    });
    // Raced against the SSUBSCRIBE below while subscribing; after that the same events reach the
    // 'close' and 'moved' handlers (this.lost), which resubscribe the group. Told at debug level so
    // a rejection nobody raced is still seen.
    failed.catch((err) => logger.debug({ err, channel: this.channel }, 'a channel group connection ended'));
    connection.on('error', (error) => {
      context.outage.failure('redis', classify(error));
      this.lost(connection, error);
    });
    connection.on('close', () => this.lost(connection));
    connection.on('moved', () => this.lost(connection));
    connection.on('smessage', (channel: string, message: string) => this.onMessage(channel, message));
    try {
      await bounded(connection.connect(), SUBSCRIBE_TIMEOUT_MS, `connecting to ${node}`, failed);
      await bounded(connection.ssubscribe(this.channel), SUBSCRIBE_TIMEOUT_MS, `SSUBSCRIBE at ${node}`, failed);
    } catch (error) {
      drop(connection);
      throw error;
    }
    if (context.closed) {
      connection.disconnect();
      return;
    }
    this.connection = connection;
    this.node = node;
    context.outage.connected('redis');
    // In effect from here on: what was published before is in the store (published only once
    // committed), and each stream reads it from where it stands.
    for (const topic of context.listeners.topics()) {
      if (groupOf(topic) === this.group) context.listeners.deliver(topic, CATCH_UP);
    }
  }

  /** The connection the group held failed, closed or was told its slot moved: subscribe again (once). */
  private lost(connection: Redis, error?: unknown): void {
    if (connection !== this.connection) return;
    this.connection = undefined;
    this.node = undefined;
    connection.removeAllListeners('smessage');
    drop(connection);
    if (this.context.closed) return;
    this.resubscribes++;
    logger.info({ channel: this.channel, err: error }, 'a channel group of the event bus lost its subscription; subscribing again');
    void this.subscribe();
  }

  /** Loses the group when the slot map says another master holds its slot now (see the class). */
  check(map: SlotMap): void {
    const owner = map[this.slot];
    if (this.connection && owner && owner !== this.node) this.lost(this.connection, new Error(`slot ${this.slot} moved to ${owner}`));
  }

  private onMessage(channel: string, message: string): void {
    if (channel !== this.channel) return;
    deliverMessage(this.context.listeners, message, channel);
  }

  /** The group lets its connection go, to be ended by the bus with every other it opened (see its close); nothing is subscribed again. */
  close(): void {
    this.connection = undefined;
  }
}

/**
 * The event bus on a Redis Cluster with sharded pub/sub (Redis 7: SPUBLISH, SSUBSCRIBE). Each
 * topic belongs to one of CHANNEL_GROUPS channel groups (groupOf), each group is one channel in a
 * slot of its own (groupChannel), the groups' slots spread evenly over the slot space, and each
 * instance holds one sharded subscription per group (ChannelGroup). An event goes by SPUBLISH to
 * its group's channel, so it crosses only its slot's shard, never the cluster bus.
 *
 * Sharded pub/sub delivers at most once: what is published while a group is not subscribed (a
 * failover, a slot migration, a lost connection) never arrives. Every such moment ends with the
 * group subscribed again and CATCH_UP handed to its topics' listeners once the SSUBSCRIBE is in
 * effect, and the streams read what they missed from the store (see ChannelGroup), so delivery
 * stays exactly once and in order.
 */
export function createClusterBus(
  target: ClusterTarget,
  listeners: Listeners,
  outage: OutageLog,
  metrics: Metrics | undefined,
): EventBus & { groups(): ChannelGroupState[] } {
  // Publishes, and reads the slot map. A command sent while its node is down fails once the
  // cluster client's redirections are spent (16, 100 ms apart): the event stays in the outbox.
  const cluster = clusterClient(target, { maxRetriesPerRequest: 0 });
  cluster.on('error', (error) => outage.failure('redis', classify(error)));
  cluster.on('node error', (error) => outage.failure('redis', classify(error)));
  cluster.on('ready', () => outage.connected('redis'));
  const context = new GroupContext(cluster, target, listeners, outage);
  const groups = Array.from({ length: CHANNEL_GROUPS }, (_, group) => new ChannelGroup(group, context));
  for (const group of groups) void group.subscribe();

  const checker = setInterval(() => {
    context.slotMap().then(
      (map) => {
        for (const group of groups) group.check(map);
      },
      // No node answers: the groups' own connections say whether they are lost.
      (error) => outage.failure('redis', redisOutcome(error)),
    );
  }, SLOT_CHECK_MS);
  checker.unref();

  return {
    async publish(topic, payload) {
      const started = performance.now();
      try {
        await cluster.spublish(groupChannel(groupOf(topic)), encode(topic, payload));
      } catch (error) {
        const outcome = redisOutcome(error);
        metrics?.recordCall('redis', 'SPUBLISH', (performance.now() - started) / 1000, outcome);
        if (!isOutage(outcome)) {
          outage.success('redis');
          throw error;
        }
        outage.failure('redis', outcome);
        throw serviceUnavailable('redis', outcome, error);
      }
      metrics?.recordCall('redis', 'SPUBLISH', (performance.now() - started) / 1000, 'ok');
      outage.success('redis');
    },
    listen(topic, listener, uncounted) {
      listeners.add(topic, listener, uncounted);
      // Subscribed: in effect now (every later SPUBLISH of the group reaches this process). Not
      // subscribed: in effect at once too, since the group hands CATCH_UP to this listener once its
      // SSUBSCRIBE is, and the stream then reads what was committed meanwhile (see EventBus.listen).
      return new TopicListening(listeners, topic, listener);
    },
    async ping() {
      // The cluster answers; a group that is subscribing again (one shard failing over) is not a
      // reason to take every instance out of service, and catches up once it is back.
      if (cluster.status !== 'ready') throw new Error(`redis cluster connection is ${cluster.status}`);
      await cluster.ping();
    },
    listenerCount: () => listeners.count,
    connections: () => [...context.connections].reduce((n, connection) => n + openSockets(connection), openSockets(cluster)),
    groups: () =>
      groups.map((group) => ({ group: group.group, slot: group.slot, subscribed: group.subscribed, resubscribes: group.resubscribes })),
    async close() {
      context.closed = true;
      clearInterval(checker);
      listeners.clear();
      for (const group of groups) group.close();
      // Resolves once every connection the bus opened has ended, not only been told to: the groups'
      // (and any still subscribing) and the cluster's own.
      const groupsEnded = [...context.connections].map((connection) => {
        const end = ended(connection);
        drop(connection);
        return end;
      });
      await Promise.all([endConnection(cluster), ...groupsEnded]);
    },
  };
}

/** What a channel group reports of itself (see createClusterBus's `groups`). */
export interface ChannelGroupState {
  group: number;
  slot: number;
  subscribed: boolean;
  resubscribes: number;
}

/**
 * Ends a group's connection unless it closed already. Its retry strategy is none, so a closed one
 * never connects again; and ioredis's disconnect() of a closed one waits for a close that came
 * before, on a 2-second timer (its disconnectTimeout) that kept the event loop of a process that
 * embeds the server (the tests') alive after its stop (src/main.ts exits by itself).
 */
function drop(connection: Redis): void {
  if (connection.status !== 'close' && connection.status !== 'end') connection.disconnect();
}
