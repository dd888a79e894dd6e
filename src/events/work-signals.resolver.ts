import { Args, Authorized, Resolver, Root, Subscription } from 'type-graphql';
import { Role } from '../auth/principal';
import { argsType, shapeObjectType } from '../common/model-types';
import { Context } from '../context';
import { attr } from '../infra/dynamo/entity';
import { heldUnitRepos } from '../job/job.pool-api';
import type { HeldUnit } from '../job/job.repository';
import { WORK_SIGNAL_TYPES, type WorkSignal as WorkSignalValue, type WorkSignals, type WorkSignalType } from './work-signals';

// The signals add themselves to ctx.repos here, so that the context imports nothing from events.
declare module '../context' {
  interface Repositories {
    workSignals: WorkSignals;
  }
}

const SIGNAL_TYPES = Object.keys(WORK_SIGNAL_TYPES).filter((type): type is WorkSignalType => type in WORK_SIGNAL_TYPES);

/** A signal as the API shows it (src/events/work-signals.ts says when each is sent). */
export const WorkSignal = shapeObjectType({
  name: 'WorkSignal',
  description:
    'What workSignals tells a worker: claimable work appeared (claim it with claimWork), or an attempt it may hold is over. It carries no lease.',
  fields: {
    type: attr.enum(SIGNAL_TYPES, { name: 'WorkSignalType', description: 'What a workSignals message says.', values: WORK_SIGNAL_TYPES })({
      required: true,
      description: 'What happened.',
    }),
    tenantId: attr.id({ description: 'The tenant whose work it is (a pool worker serves many).' }),
    kind: attr.string({ description: 'The job kind; null for a WORK_AVAILABLE that asks you to look at everything you serve.' }),
    stage: attr.string({ description: 'The stage (a step name or a fan-out stage); null when every stage of the job is concerned.' }),
    count: attr.int({ description: 'WORK_AVAILABLE: how many units appeared.' }),
    availableAt: attr.dateTime({ description: 'WORK_AVAILABLE: from when the work can be claimed (after a retry backoff, or now).' }),
    available: attr.boolean({
      description: 'SUBSCRIBED: whether work of your kinds and stages was claimable as the subscription started.',
    }),
    jobId: attr.id({
      description: 'The job: whose attempt is over (LEASE_ENDED), or whose work appeared (WORK_AVAILABLE; null when it names no kind).',
    }),
    sequence: attr.int({ description: 'LEASE_ENDED: the item’s sequence; null for a single step.' }),
    attempt: attr.int({ description: 'LEASE_ENDED: the attempt that is over; null for every attempt of the job.' }),
    reason: attr.string({ description: 'LEASE_ENDED: JOB_CANCELLED, LEASE_EXPIRED or ATTEMPT_TIMED_OUT.' }),
    at: attr.dateTime({ required: true, description: 'When the change the signal comes from committed (or the subscription started).' }),
  },
});

const WorkSignalsArgs = argsType('WorkSignalsArgs', {
  kinds: attr.strings({
    description: 'The job kinds you claim: required for a tenant’s worker; a pool worker’s default is its pool’s kinds.',
  }),
  stages: attr.strings({ description: 'Only these stages of them; all stages when omitted (a pool worker: its pool’s).' }),
  workerId: attr.string({
    description:
      'Your process’s own id (a random one per process), passed again with each claimWork: what it claims is bound to this subscription, and when its connection is lost (closed without a close frame, or silent past the keep-alive; an SSE stream cut) and it does not subscribe again within WORKER_GRACE_SECONDS, the server hands it back (ITEM_HANDED_BACK, STEP_HANDED_BACK). Completing the subscription hands nothing back.',
  }),
});
type WorkSignalsArgs = InstanceType<typeof WorkSignalsArgs>;

/**
 * The workSignals of the caller (a worker): a pool worker's through its pool's (tenantless)
 * repositories, as claimWork reaches its scheduler. Throws as Context.repos does for anyone else.
 */
function signalsOf(context: unknown): { signals: WorkSignals; pool?: { kinds: string[]; stages?: string[] } } {
  if (!(context instanceof Context)) throw new Error('A subscription ran without the request context.');
  const pool = context.principal?.pool;
  if (pool && context.principal) return { signals: context.reposForPoolClaim(context.principal.tenantId).workSignals, pool };
  return { signals: context.repos.workSignals };
}

@Resolver()
export class WorkSignalResolver {
  @Authorized(Role.WORKER, Role.POOL)
  @Subscription(() => WorkSignal, {
    description:
      'Worker: work pushed instead of polled. The first message is SUBSCRIBED (available: whether work of your kinds and stages is claimable now); then WORK_AVAILABLE when claimable work appears (claim with claimWork until it answers null) and LEASE_ENDED when an attempt is over (the job cancelled, or taken over by another worker). Scoped by your token: a tenant’s worker hears its tenant’s work, a pool worker its pool’s kinds and stages. Not positioned: a new subscription starts from the claimable indexes as they are, which is all a worker needs after a disconnect.',
    subscribe: ({ args, context }) => {
      const { signals, pool } = signalsOf(context);
      const lifetime = context instanceof Context ? context.lifetime : undefined;
      // A bound worker's units are reached later as its reports reach them, from a context of its own.
      const later = context instanceof Context ? context.detached() : undefined;
      const binding =
        args.workerId && later ? { workerId: args.workerId, lifetime, reach: (unit: HeldUnit) => heldUnitRepos(later, unit) } : undefined;
      return signals.open(pool, args.kinds ?? null, args.stages ?? null, binding);
    },
  })
  workSignals(@Root() signal: WorkSignalValue, @Args(() => WorkSignalsArgs) _args: WorkSignalsArgs): WorkSignalValue {
    return signal;
  }
}
