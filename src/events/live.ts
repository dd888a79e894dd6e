import type { ActivityRepository } from '../activity/activity.repository';
import { type ActivityEvent, isActivityEvent } from '../activity/activity.type';
import { assertId } from '../common/ids';
import type { Scope } from '../common/scope';
import type { BoundTenant } from '../common/bound-tenant';
import { JOB_STATUS_SHARDS, type PositionedStream } from '../common/streams';
import { badInput, notFound } from '../errors';
import type { Metrics } from '../infra/metrics';
import type { QuerySpec } from '../infra/dynamo/store';
import type { EventBus, Listener } from '../infra/pubsub';
import { HEAD_POSITION } from '../infra/dynamo/write';
import { FINAL, TERMINAL } from '../job/job.machine';
import { jobEventsAfter } from '../job/job.keys';
import type { JobRepository } from '../job/job.repository';
import { isJobEvent } from '../job/job.type';
import type { ProjectRepository } from '../project/project.repository';
import { type Head, KnownHeads } from './known-heads';
import { markDelivered, replayThenLive, type ReplayObserver, type ReplayOptions, type StreamStart } from './replay';
import { decodeCursor, encodeCursor } from './shard-cursor';
import { type JobMessage, StreamMessageType } from './stream-messages';
import { topics } from './topics';

/** Throws BAD_USER_INPUT unless `position` is null or a position (0 or more). */
function checkPosition(position: number | null, argument: string): void {
  if (position !== null && (!Number.isInteger(position) || position < 0)) {
    throw badInput(`${argument} must be a position of 0 or more, got ${position}.`, argument);
  }
}

/**
 * Control messages (acknowledgement, history lost) made in the current turn of the event loop, by
 * stream, type and position. A burst of subscribes to one stream shares its head read (see
 * SharedItemReads), so its subscribers are acknowledged together, in the turn that read ends in, at
 * one position. They then get one message object, as the subscribers of a live event do, and the
 * pipeline executes and serializes it once per share key rather than once per subscriber. Nothing
 * in these messages is particular to a subscriber: everything follows from the stream and the
 * position, and their `at` is the moment the first of them was made, within the same turn.
 */
class SharedInTurn<V> {
  private readonly values = new Map<string, V>();

  get(key: string, make: () => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      // Forgotten once the turn ends, so a later subscriber gets a message of its own moment.
      if (this.values.size === 0) setImmediate(() => this.values.clear());
      value = make();
      this.values.set(key, value);
    }
    return value;
  }
}

const jobControls = new SharedInTurn<JobMessage>();
const activityControls = new SharedInTurn<ActivityEvent>();

/** What every subscription of one server shares: the bus and the replay's limits and metrics (see Live). */
export interface LiveOptions {
  bus: EventBus;
  maxBuffer: number;
  maxReplay?: number;
  metrics?: Metrics;
}

/** The same for the subscriptions themselves, made once per LiveOptions rather than per caller. */
interface LiveShared {
  bus: EventBus;
  /** Where the streams subscribed to on this server stand, kept from their live events. */
  heads: KnownHeads;
  maxBuffer: number;
  maxReplay?: number;
  observer?: ReplayObserver;
}

const sharedOf = new WeakMap<LiveOptions, LiveShared>();

function liveShared(options: LiveOptions): LiveShared {
  let shared = sharedOf.get(options);
  if (!shared) {
    const { metrics } = options;
    shared = {
      bus: options.bus,
      heads: new KnownHeads(options.bus),
      maxBuffer: options.maxBuffer,
      maxReplay: options.maxReplay,
      observer: metrics && {
        replayed: () => metrics.eventsReplayed.inc(),
        resync: () => metrics.resyncsSent.inc(),
        historyLost: () => metrics.historyLostSent.inc(),
      },
    };
    sharedOf.set(options, shared);
  }
  return shared;
}

/**
 * One subscription to one stream, as its replay-then-live stream sees it (ReplayOptions): what it
 * reads, how its events are told apart and what its control messages say. It is one object with
 * its methods on the prototype, holding only what it needs for its whole life (the store, its
 * tenant and subject), not the caller's context or repositories: an idle subscriber holds it as
 * long as it is subscribed, and thousands of them wait on a busy topic.
 */
abstract class StreamSubscription<E> implements ReplayOptions<E> {
  /** Where the stream stands, given by `started` once the head is read (see Live.open); until the stream takes it. */
  private start: Promise<StreamStart> | undefined;
  private begin: ((start: StreamStart) => void) | undefined;
  protected readonly store: Scope['store'];
  protected readonly reads: Scope['shared'];
  protected readonly tenant: BoundTenant;

  constructor(
    private readonly env: LiveShared,
    scope: Scope,
    readonly topic: string,
    /** The position the client resumes from (null: from now) and the argument it came in, for errors. */
    readonly from: number | null,
    readonly argument: string,
  ) {
    this.store = scope.store;
    this.reads = scope.shared;
    this.tenant = scope.tenant;
    this.start = new Promise((resolve) => {
      this.begin = resolve;
    });
  }

  get maxBuffer(): number {
    return this.env.maxBuffer;
  }

  get maxReplay(): number | undefined {
    return this.env.maxReplay;
  }

  get observer(): ReplayObserver | undefined {
    return this.env.observer;
  }

  live(listener: Listener) {
    return this.env.bus.listen(this.topic, listener);
  }

  /** Where the stream stands (see ReplayOptions.takeStart); throws when it was taken already, a fault of the caller. */
  takeStart(): Promise<StreamStart> {
    const { start } = this;
    if (!start) throw new Error(`The start of the stream ${this.topic} was taken twice.`);
    this.start = undefined;
    return start;
  }

  /** Settles `start`: the stream goes on from there. */
  started(start: StreamStart): void {
    this.begin?.(start);
    this.begin = undefined;
  }

  /** Learns what the head says beyond its position (a job's project); nothing by default. */
  learn(_head: Head): void {}

  /** The position of a live payload that is an event of this stream (see KnownHeads). */
  livePosition(payload: unknown): number | undefined {
    return this.accept(payload) ? this.positionOf(payload) : undefined;
  }

  /** True for a live payload after which the subject may be removed (see KnownHeads); none by default. */
  makesRemovable(_payload: unknown): boolean {
    return false;
  }

  /** A page of the stored events of `spec`, as events of this stream's type. */
  protected async eventsOf(spec: QuerySpec, limit: number, fresh: boolean): Promise<E[]> {
    const items = fresh ? await this.store.queryFirst(spec, limit) : await this.reads.page(spec, limit);
    return items.filter((item) => this.accept(item));
  }

  abstract readPage(after: number, limit: number, fresh: boolean): Promise<E[]>;
  abstract accept(payload: unknown): payload is E;
  abstract positionOf(event: E): number;
  abstract acknowledge(position: number): E;
  abstract historyLost(position: number): E;
  abstract resync(position: number, lastEvent: E | undefined): E;
}

/** A job's events (see Live.jobProgress). */
class JobProgressSubscription extends StreamSubscription<JobMessage> {
  /** Only this is kept for the subscription's life, not the job and its steps; known once the head is read. */
  projectId = '';

  constructor(
    shared: LiveShared,
    scope: Scope,
    private readonly jobId: string,
    from: number | null,
  ) {
    super(shared, scope, topics.job(scope.tenant, jobId), from, 'afterSeq');
  }

  readPage(after: number, limit: number, fresh: boolean): Promise<JobMessage[]> {
    return this.eventsOf(jobEventsAfter(this.tenant, this.jobId, after), limit, fresh);
  }

  accept(payload: unknown): payload is JobMessage {
    return isJobEvent(payload);
  }

  positionOf(event: JobMessage): number {
    return event.seq;
  }

  isFinal(event: JobMessage): boolean {
    return event.job !== undefined && FINAL.has(event.job.status);
  }

  /** A job that finished or failed may be deleted (deleteJob). */
  override makesRemovable(payload: unknown): boolean {
    return this.accept(payload) && payload.job !== undefined && TERMINAL.has(payload.job.status);
  }

  override learn(head: Head): void {
    this.projectId = head.projectId ?? '';
  }

  acknowledge(position: number): JobMessage {
    return this.sharedControl(StreamMessageType.SUBSCRIBED, position);
  }

  historyLost(position: number): JobMessage {
    return this.sharedControl(StreamMessageType.HISTORY_LOST, position);
  }

  resync(position: number): JobMessage {
    return this.control(StreamMessageType.RESYNC, position, { resumeAfterSeq: position });
  }

  private sharedControl(type: StreamMessageType, position: number): JobMessage {
    return jobControls.get(`${this.topic}\u0000${type}\u0000${position}`, () => this.control(type, position));
  }

  private control(type: StreamMessageType, position: number, extra: Partial<JobMessage> = {}): JobMessage {
    return {
      eventId: `${this.jobId}:${type.toLowerCase()}:${position}`,
      jobId: this.jobId,
      projectId: this.projectId,
      seq: position,
      prevSeq: position,
      position,
      type,
      actor: 'server',
      at: new Date().toISOString(),
      ...extra,
    };
  }
}

/** Status changes of the jobs of one project, or of one shard of the whole tenant's (see Live.jobStatusChanges). */
class JobStatusSubscription extends StreamSubscription<JobMessage> {
  constructor(
    shared: LiveShared,
    scope: Scope,
    private readonly stream: PositionedStream,
    private readonly projectId: string | null,
    from: number | null,
    /** The shard of the tenant's stream (projectId null), see JOB_STATUS_SHARDS. */
    shard = 0,
    argument = 'after',
  ) {
    super(shared, scope, projectId ? topics.projectJobs(scope.tenant, projectId) : topics.tenantJobs(scope.tenant, shard), from, argument);
  }

  readPage(after: number, limit: number, fresh: boolean): Promise<JobMessage[]> {
    return this.eventsOf(this.stream.after(after), limit, fresh);
  }

  accept(payload: unknown): payload is JobMessage {
    return isJobEvent(payload);
  }

  positionOf(event: JobMessage): number {
    return event.position;
  }

  acknowledge(position: number): JobMessage {
    return this.sharedControl(StreamMessageType.SUBSCRIBED, position);
  }

  historyLost(position: number): JobMessage {
    return this.sharedControl(StreamMessageType.HISTORY_LOST, position);
  }

  resync(position: number): JobMessage {
    return { ...this.control(StreamMessageType.RESYNC, position), resumeAfterSeq: position };
  }

  private sharedControl(type: StreamMessageType, position: number): JobMessage {
    return jobControls.get(`${this.topic}\u0000${type}\u0000${position}`, () => this.control(type, position));
  }

  private control(type: StreamMessageType, position: number): JobMessage {
    return {
      eventId: `${this.projectId ?? 'tenant'}:jobs:${type.toLowerCase()}:${position}`,
      jobId: '',
      projectId: this.projectId ?? '',
      seq: 0,
      prevSeq: 0,
      position,
      type,
      actor: 'server',
      at: new Date().toISOString(),
    };
  }
}

/** A control message of the tenant's merged job status stream (see MergedShards), with its cursor. */
function tenantControl(topic: string, type: StreamMessageType, position: number, cursor: string): JobMessage {
  const make = (): JobMessage =>
    markDelivered(
      {
        eventId: `tenant:jobs:${type.toLowerCase()}:${cursor}`,
        jobId: '',
        projectId: '',
        seq: 0,
        prevSeq: 0,
        position,
        cursor,
        type,
        actor: 'server',
        at: new Date().toISOString(),
        ...(type === StreamMessageType.RESYNC ? { resumeAfterSeq: position } : {}),
      },
      cursor,
      type === StreamMessageType.RESYNC,
    );
  // A resync is its subscriber's own; the others are the same for every subscriber at one cursor.
  return type === StreamMessageType.RESYNC ? make() : jobControls.get(`${topic}\u0000${type}\u0000${cursor}`, make);
}

/**
 * The shards of the tenant's job status stream as one stream (see Live.tenantJobStatusChanges),
 * each shard a replay-then-live stream of its own (replay.ts) with its own listener, position,
 * replay, HISTORY_LOST and REPLAY_MAX_EVENTS. It sends one acknowledgement once every shard's
 * listener is in effect, at every shard's acknowledged position (a shard whose history is lost is
 * acknowledged at its head, as a one-shard stream is), then one HISTORY_LOST if any shard lost its
 * history, then each shard's messages in that shard's order, shards interleaved as their messages
 * come: a job's changes are all in one shard, so they keep their order, which is what a position
 * promised of one stream too; changes of different jobs have no order between them. Each message
 * carries the cursor of every shard's position after it, and as `position` the sum of them. A
 * shard's RESYNC (its buffer overflowed) is passed on and ends the whole stream, as it ends a
 * one-shard stream. Returning it returns every shard, which closes their listeners at once, also
 * while it waits for a message.
 */
export class MergedShards implements AsyncIterableIterator<JobMessage> {
  private readonly positions: number[];
  /** Each shard's next message under way, once the acknowledgements came. */
  private pending: Promise<{ shard: number; result: IteratorResult<JobMessage> }>[] = [];
  /** Messages to send before pulling (the acknowledgement, a history lost). */
  private readonly queue: JobMessage[] = [];
  private begun = false;
  private ended = false;
  /** The message just sent ends the stream (a resync). */
  private last = false;

  constructor(
    private readonly shards: AsyncIterator<JobMessage>[],
    private readonly from: readonly (number | null)[],
    /** The resume named no one set of positions (see Live.tenantJobStatusChanges): say so after the acknowledgement. */
    private readonly historyLost: boolean,
    /** What tells this tenant's shared control messages apart (shard 0's topic). */
    private readonly topic: string,
  ) {
    this.positions = from.map((position) => position ?? 0);
  }

  private get sum(): number {
    return this.positions.reduce((a, b) => a + b, 0);
  }

  private pull(shard: number) {
    return this.shards[shard].next().then((result) => ({ shard, result }));
  }

  private control(type: StreamMessageType): JobMessage {
    return tenantControl(this.topic, type, this.sum, encodeCursor(this.positions));
  }

  /** What a shard's message becomes in the merged stream, once the shard stands at its position. */
  private take(shard: number, message: JobMessage): JobMessage {
    this.positions[shard] = message.position;
    if (message.type === StreamMessageType.RESYNC) {
      this.last = true;
      return this.control(StreamMessageType.RESYNC);
    }
    if (message.type === StreamMessageType.HISTORY_LOST) return this.control(StreamMessageType.HISTORY_LOST);
    const cursor = encodeCursor(this.positions);
    return markDelivered({ ...message, position: this.sum, cursor }, cursor);
  }

  private async begin(): Promise<boolean> {
    this.begun = true;
    // Every shard's first message is its acknowledgement, at the client's position or the head.
    const firsts = await Promise.all(this.shards.map((shard) => shard.next()));
    if (this.ended) return false;
    for (const [shard, first] of firsts.entries()) {
      if (first.done) return false;
      this.positions[shard] = first.value.position;
    }
    // A shard acknowledged past the client's position lost its history: its next message says so
    // (replay.ts sends it right after the acknowledgement), and the merged stream says it once, next.
    const lost = firsts.flatMap((first, shard) => (this.from[shard] !== null && first.value?.position !== this.from[shard] ? [shard] : []));
    const seconds = await Promise.all(lost.map((shard) => this.shards[shard].next()));
    if (this.ended || seconds.some((second) => second.done)) return false;
    this.queue.push(this.control(StreamMessageType.SUBSCRIBED));
    const others: JobMessage[] = [];
    seconds.forEach((second, i) => {
      if (!second.done && second.value.type !== StreamMessageType.HISTORY_LOST) others.push(this.take(lost[i], second.value));
    });
    if (this.historyLost || lost.length > others.length) this.queue.push(this.control(StreamMessageType.HISTORY_LOST));
    this.queue.push(...others);
    this.pending = this.shards.map((_, shard) => this.pull(shard));
    return true;
  }

  async next(): Promise<IteratorResult<JobMessage>> {
    if (this.last && this.queue.length === 0) await this.return();
    if (this.ended) return { done: true, value: undefined };
    try {
      if (!this.begun && !(await this.begin())) return this.return();
      const queued = this.queue.shift();
      if (queued) return { done: false, value: queued };
      const { shard, result } = await Promise.race(this.pending);
      if (this.ended || result.done) return this.return();
      this.pending[shard] = this.pull(shard);
      return { done: false, value: this.take(shard, result.value) };
    } catch (error) {
      // A shard's read failed (its stream ends with it): the others are let go, and the caller gets the error.
      await this.return();
      throw error;
    }
  }

  async return(): Promise<IteratorResult<JobMessage>> {
    if (!this.ended) {
      this.ended = true;
      await Promise.all(this.shards.map((shard) => shard.return?.()));
    }
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** A project's activity (see Live.projectActivity). */
class ActivitySubscription extends StreamSubscription<ActivityEvent> {
  private readonly stream: PositionedStream;

  constructor(
    shared: LiveShared,
    scope: Scope,
    private readonly projectId: string,
    from: number | null,
    private readonly afterEventId: string | null,
  ) {
    super(shared, scope, topics.projectActivity(scope.tenant, projectId), from, 'after');
    this.stream = scope.tenant.projectActivity(projectId);
  }

  readPage(after: number, limit: number, fresh: boolean): Promise<ActivityEvent[]> {
    return this.eventsOf(this.stream.after(after), limit, fresh);
  }

  accept(payload: unknown): payload is ActivityEvent {
    return isActivityEvent(payload);
  }

  positionOf(event: ActivityEvent): number {
    return event.position ?? 0;
  }

  acknowledge(position: number): ActivityEvent {
    return this.sharedControl('subscription.started', position);
  }

  historyLost(position: number): ActivityEvent {
    return this.sharedControl('subscription.history_lost', position);
  }

  resync(position: number, lastEvent: ActivityEvent | undefined): ActivityEvent {
    return this.control('subscription.resync', position, { resumeAfter: lastEvent?.eventId ?? this.afterEventId ?? undefined });
  }

  private sharedControl(action: string, position: number): ActivityEvent {
    return activityControls.get(`${this.topic}\u0000${action}\u0000${position}`, () => this.control(action, position));
  }

  private control(action: string, position: number, extra: Partial<ActivityEvent> = {}): ActivityEvent {
    return {
      eventId: `${this.projectId}:${action}:${position}`,
      action,
      subjectType: 'Subscription',
      subjectId: this.projectId,
      projectId: this.projectId,
      actor: 'server',
      at: new Date().toISOString(),
      position,
      ...extra,
    };
  }
}

/**
 * The subscriptions of one caller. Topics are built from the caller's tenant (from the token),
 * and the subject is checked to exist in that tenant first, so a subscription to another
 * tenant's job or project fails with NOT_FOUND and receives nothing.
 *
 * Every stream is positioned (see replay.ts): its first message acknowledges the position it
 * starts from, every message carries the position to resume from, and a position older than the
 * stored history gets one history-lost message instead of a partial replay.
 */
export class Live {
  private readonly shared: LiveShared;

  /** `options` is best one object for all callers of a server: what follows from it is made once per object. */
  constructor(
    private readonly scope: Scope,
    options: LiveOptions,
    private readonly jobs: JobRepository,
    private readonly projects: ProjectRepository,
    private readonly activity: ActivityRepository,
  ) {
    this.shared = liveShared(options);
  }

  /**
   * Opens one stream: listens first, then takes the head, so that no event falls between the two:
   * the head this server knows from the stream's live events when it may serve (see KnownHeads),
   * else a read (`head`, which throws NOT_FOUND for a missing subject). A position ahead of a head
   * read is the client's mistake (BAD_USER_INPUT), since a position is only ever handed out for an
   * event that committed.
   */
  private async open<E>(subscription: StreamSubscription<E>, head: () => Promise<Head>): Promise<AsyncIterable<E>> {
    const stream = replayThenLive<E>(subscription);
    try {
      await stream.ready;
      const { from, argument } = subscription;
      const start = await this.shared.heads.headOf(subscription, from, head);
      if (from !== null && from > start.head) {
        throw badInput(`${argument} ${from} is ahead of the stream, whose last position is ${start.head}.`, argument);
      }
      subscription.learn(start);
      subscription.started({ from, head: start.head, finished: start.finished });
      return stream;
    } catch (error) {
      await stream.return?.();
      throw error;
    }
  }

  /** The head of a positioned stream. */
  private async positionedHead(stream: PositionedStream): Promise<{ head: number }> {
    return { head: Number((await this.scope.shared.get(stream.head))?.[HEAD_POSITION] ?? 0) };
  }

  /**
   * A job's events in seq order; with `afterSeq`, every stored event after it first. The stream
   * ends after the event that finishes the job (COMPLETED or CANCELLED); a job that has finished
   * already gets the stored events after `afterSeq`, if any, and the stream ends. FAILED does not
   * end it, because `retryJob` can run the job again.
   */
  async jobProgress(jobId: string, afterSeq: number | null): Promise<AsyncIterable<JobMessage>> {
    assertId(jobId, 'job', 'jobId');
    checkPosition(afterSeq, 'afterSeq');
    const subscription = new JobProgressSubscription(this.shared, this.scope, jobId, afterSeq);
    // The job as read once the listener is in effect: an event committed after the read arrives
    // live, one committed before it is part of the job, so its seq is the head.
    return this.open(subscription, async () => {
      const job = await this.jobs.head(jobId);
      if (!job) throw notFound('Job', jobId);
      return { head: job.seq, finished: FINAL.has(job.status), projectId: job.projectId, removable: TERMINAL.has(job.status) };
    });
  }

  /**
   * Status changes of the jobs of one project, or of the whole tenant; with `after` (a project's,
   * or `afterCursor` for the tenant's, see tenantJobStatusChanges), stored ones after it first.
   */
  async jobStatusChanges(
    projectId: string | null,
    after: number | null,
    afterCursor: string | null = null,
  ): Promise<AsyncIterable<JobMessage>> {
    if (projectId !== null) assertId(projectId, 'proj', 'projectId');
    checkPosition(after, 'after');
    if (afterCursor !== null && (after !== null || projectId !== null)) {
      throw badInput(
        projectId !== null
          ? "afterCursor resumes the tenant's job status changes; a project's are one stream: resume them with after."
          : 'Pass after or afterCursor, not both: afterCursor is the cursor of the last message you received.',
        'afterCursor',
      );
    }
    if (projectId === null) return this.tenantJobStatusChanges(after, afterCursor);
    if (!(await this.projects.exists(projectId))) throw notFound('Project', projectId);
    const stream = this.scope.tenant.projectJobStatus(projectId);
    return this.open(new JobStatusSubscription(this.shared, this.scope, stream, projectId, after), () => this.positionedHead(stream));
  }

  /**
   * The tenant's job status changes: JOB_STATUS_SHARDS streams (a job's changes all in one, see
   * jobStatusShard), each listened to and replayed from its own position, merged into one (see
   * MergedShards). A message carries `cursor`, every shard's position after it, which `afterCursor`
   * resumes from exactly, and `position`, the sum of those positions (the count of the tenant's
   * status changes up to it, which equals the one stream's position of before the sharding).
   *
   * `after` (an Int, what clients of the one stream of before pass) is exact where it can be: 0
   * (from the start), the sum of the heads (nothing was missed), or while shards 1 and up are still
   * empty (a position of before the sharding, which is shard 0's). Any other `after` below the sum names no one set
   * of shard positions: the client gets the acknowledgement at the heads, then HISTORY_LOST, and
   * re-reads what it shows, as for an expired position. Above the sum it is BAD_USER_INPUT.
   */
  private async tenantJobStatusChanges(after: number | null, afterCursor: string | null): Promise<AsyncIterable<JobMessage>> {
    const { tenant } = this.scope;
    const shards = Array.from({ length: JOB_STATUS_SHARDS }, (_, shard) => tenant.jobStatus(shard));
    let from: (number | null)[] = shards.map(() => null);
    let historyLost = false;
    if (afterCursor !== null) from = decodeCursor(afterCursor, 'afterCursor');
    else if (after !== null) {
      // Read before listening: exact for the cases named above, whatever commits meanwhile (it is replayed).
      const heads = await Promise.all(shards.map(async (stream) => (await this.positionedHead(stream)).head));
      const sum = heads.reduce((a, b) => a + b, 0);
      if (after > sum) throw badInput(`after ${after} is ahead of the stream, whose last position is ${sum}.`, 'after');
      // Exact: nothing seen (0), everything (the sum), or a position of before the sharding (shards 1 and up empty).
      if (after === 0 || heads.slice(1).every((head) => head === 0)) from = heads.map((_, shard) => (shard === 0 ? after : 0));
      else {
        from = heads;
        historyLost = after < sum;
      }
    }
    const argument = afterCursor !== null ? 'afterCursor' : 'after';
    const opened = await Promise.allSettled(
      shards.map((stream, shard) =>
        this.open(new JobStatusSubscription(this.shared, this.scope, stream, null, from[shard], shard, argument), () =>
          this.positionedHead(stream),
        ),
      ),
    );
    const failed = opened.find((result) => result.status === 'rejected');
    const streams = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value[Symbol.asyncIterator]()] : []));
    if (failed) {
      await Promise.all(streams.map((stream) => stream.return?.()));
      throw failed.reason;
    }
    return new MergedShards(streams, from, historyLost, topics.tenantJobs(tenant, 0));
  }

  /**
   * A project's activity (logs, assets, milestones, briefs…); with `after` (or the older
   * `afterEventId`), every stored event after it first.
   */
  async projectActivity(projectId: string, after: number | null, afterEventId: string | null): Promise<AsyncIterable<ActivityEvent>> {
    assertId(projectId, 'proj', 'projectId');
    checkPosition(after, 'after');
    if (!(await this.projects.exists(projectId))) throw notFound('Project', projectId);
    if (afterEventId !== null) {
      assertId(afterEventId, 'evt', 'afterEventId');
      // An event no longer stored resumes from before the first position, which no stored event
      // follows without a gap: the replay reports history lost instead of replaying the rest.
      if (after === null) after = (await this.activity.positionOfEvent(projectId, afterEventId)) ?? -1;
    }
    const subscription = new ActivitySubscription(this.shared, this.scope, projectId, after, afterEventId);
    return this.open(subscription, () => this.positionedHead(this.scope.tenant.projectActivity(projectId)));
  }
}
