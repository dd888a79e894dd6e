import { CATCH_UP, type EventBus, type Listening, UNCOUNTED } from '../infra/pubsub';
import type { StreamStart } from './replay';

/** Where a stream stands, as a subscription starts from it (see Live.open); `projectId` is a job's project. */
export interface Head extends Omit<StreamStart, 'from'> {
  projectId?: string;
  /** The subject may be removed from now on (a job that finished or failed may be deleted): the head is not kept. */
  removable?: boolean;
}

/** What the known head of a topic needs to know of the live payloads on it (a stream's subscription has all of it). */
export interface HeadEvents {
  readonly topic: string;
  /** The position of a payload that is an event of the stream; undefined for anything else. */
  livePosition(payload: unknown): number | undefined;
  /** True for an event after which the subject may be removed (a job that finished or failed): the head is not kept. */
  makesRemovable(payload: unknown): boolean;
}

/**
 * How long a head read serves the subscribes after it, moved on by the live events. Past it the
 * next subscribe reads the head again, so whatever the live events cannot say (a subject removed
 * meanwhile) is at most this old; a burst of 10,000 subscribes to one job then costs a read or two
 * per this interval, not one per 40 subscribers.
 */
export const KNOWN_HEAD_MS = 2_000;
/** A known head that no subscribe asked for this long stops listening and is forgotten. */
const IDLE_MS = 10_000;

/**
 * The head of one topic's stream as this server knows it without a read: the last head read (one
 * that started once this object's listener was in effect), moved on by each live event that
 * follows it without a gap.
 *
 * Why a subscription may start from it. A subscription listens first and then needs a head such
 * that every event up to it is in the store and every later one reaches its listener (see
 * replay.ts). This object's listener was in effect before the subscription's, and the bus hands
 * an event to the listeners of a topic one after the other in one call. So at the moment the
 * subscription asks, every event above the known head either has not reached this process yet, and
 * then reaches the subscription's listener too, or has reached this object already, which then
 * knows it. That is why the head is served only while no event above it has arrived out of order
 * (a gap: the event after the head is on its way, and what came after it would never reach the
 * new listener): then the next subscribe reads the head again. After the bus reconnected
 * (CATCH_UP) events may have been missed: the head is read again too. A known head may lag behind
 * the store (an event committed and not yet relayed), never run ahead of it, since every position
 * it holds came from a read or a committed event; a subscription that starts lower reads what lies
 * between from the store when the next event arrives, and a client's position above the known
 * head is checked against a read, never refused on it.
 */
class KnownHead {
  private readonly listening: Listening;
  private base: Head | undefined;
  /** performance.now() when the read that set `base` was asked for. */
  private readAt = Number.NEGATIVE_INFINITY;
  /** Positions that arrived above the head with a gap before them. */
  private readonly ahead = new Set<number>();
  lastUsed = performance.now();
  /** A head read under way that will move this head on; subscribes wait for it rather than read too. */
  refreshing: Promise<void> | undefined;
  /** Set once the listener's `ready` failed: nothing is known, every subscribe reads. */
  failed = false;

  constructor(
    bus: EventBus,
    private readonly events: HeadEvents,
    private readonly maxAgeMs: number,
  ) {
    // Not a subscriber: left out of the listener gauge, which counts the subscriptions' listeners.
    this.listening = bus.listen(events.topic, this.onLive.bind(this), UNCOUNTED);
    this.listening.ready.catch(() => {
      this.failed = true;
    });
  }

  close(): void {
    this.listening.close();
  }

  /** The head, if it may serve a subscribe now (see the class). */
  current(): Head | undefined {
    const { base } = this;
    if (!base || this.ahead.size > 0 || performance.now() - this.readAt > this.maxAgeMs) return undefined;
    return base;
  }

  /**
   * `read()` once the listener is in effect, moving this head on with its answer; meanwhile
   * `refreshing` settles with it (never rejecting: who waits for it reads for itself when it
   * failed). Resolves with the read's answer; a throw is the read's.
   */
  async refresh(read: () => Promise<Head>): Promise<Head> {
    const reading = this.readOnceListening(read);
    const refreshing = reading.then(
      () => {},
      () => {},
    );
    this.refreshing = refreshing;
    refreshing.then(() => {
      if (this.refreshing === refreshing) this.refreshing = undefined;
    });
    return reading;
  }

  private async readOnceListening(read: () => Promise<Head>): Promise<Head> {
    try {
      await this.listening.ready;
    } catch {
      // Its SUBSCRIBE was refused: the subscription's own listener says so; this head learns nothing.
      return read();
    }
    const askedAt = performance.now();
    const head = await read();
    this.rebase(head, askedAt);
    return head;
  }

  /** A head read asked for once the listener was in effect, at `askedAt`, answered `head`. */
  rebase(head: Head, askedAt: number): void {
    // Only a read says that a subject was removed (a deleted job): the head of one that may be is not kept.
    if (this.failed || head.removable) return;
    if (!this.base || head.head >= this.base.head) this.base = head;
    this.readAt = Math.max(this.readAt, askedAt);
    this.advance();
  }

  private onLive(payload: object): void {
    if (payload === CATCH_UP) {
      this.forget();
      return;
    }
    const position = this.events.livePosition(payload);
    if (position === undefined) return;
    if (this.events.makesRemovable(payload)) {
      this.forget();
      return;
    }
    if (!this.base || position <= this.base.head) return;
    this.ahead.add(position);
    this.advance();
  }

  /** Moves the head over the positions that now follow it without a gap; drops those at or below it. */
  private advance(): void {
    const { base } = this;
    if (!base) return;
    let head = base.head;
    while (this.ahead.delete(head + 1)) head++;
    for (const position of this.ahead) if (position <= head) this.ahead.delete(position);
    if (head !== base.head) this.base = { ...base, head };
  }

  /** Nothing is known until the next read. */
  private forget(): void {
    this.base = undefined;
    this.ahead.clear();
    this.readAt = Number.NEGATIVE_INFINITY;
  }
}

/**
 * The known heads of the topics subscribed to on this server (see KnownHead): a burst of
 * subscribes to one stream is served from the live events this server relays anyway, with a head
 * read every KNOWN_HEAD_MS at most, instead of a read per batch of subscribers. One per bus.
 */
export class KnownHeads {
  private readonly byTopic = new Map<string, KnownHead>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Heads served without a read; tests and benchmarks read it. */
  served = 0;

  /** How many topics' heads are kept now, each with its listener on the bus (see KnownHead). */
  get kept(): number {
    return this.byTopic.size;
  }

  /** True while the idle sweep's timer runs (only while a head is kept). */
  get sweeping(): boolean {
    return this.sweeper !== undefined;
  }

  /** `maxAgeMs`: how long a head read serves (KNOWN_HEAD_MS by default). */
  constructor(
    private readonly bus: EventBus,
    private readonly maxAgeMs = KNOWN_HEAD_MS,
  ) {}

  /**
   * Where `events`' stream stands for a subscription whose listener is in effect and which resumes
   * after `from` (null: from the head): the known head when it may serve (see KnownHead) and is
   * not below `from`, else `read()` (which must read the head afresh after this call), whose answer
   * then moves the known head on. A throw is `read`'s.
   */
  async headOf(events: HeadEvents, from: number | null, read: () => Promise<Head>): Promise<Head> {
    let known = this.byTopic.get(events.topic);
    if (known?.failed) {
      known.close();
      this.byTopic.delete(events.topic);
      known = undefined;
    }
    if (!known) {
      known = new KnownHead(this.bus, events, this.maxAgeMs);
      this.byTopic.set(events.topic, known);
      this.sweep();
    }
    known.lastUsed = performance.now();
    const serves = (head: Head | undefined): head is Head => head !== undefined && (from === null || from <= head.head);
    let current = known.current();
    if (!serves(current) && known.refreshing) {
      // A read that started once the known head was listening moves it on: as good as one's own.
      await known.refreshing;
      current = known.current();
    }
    if (serves(current)) {
      this.served++;
      return current;
    }
    return known.refresh(read);
  }

  /** Forgets the known heads no subscribe asked for within IDLE_MS, checking once per IDLE_MS while any is kept. */
  private sweep(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const [topic, known] of this.byTopic) {
        if (now - known.lastUsed < IDLE_MS) continue;
        known.close();
        this.byTopic.delete(topic);
      }
      if (this.byTopic.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, IDLE_MS).unref();
  }
}
