import { Arg, Authorized, Ctx, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import { driftView } from '../common/drift';
import { feature } from '../common/feature';
import type { Context } from '../context';
import { badInput } from '../errors';
import type { MigrationOverview, Migrations } from './migration.service';
import { Migration, MigrationState, ModelDrift } from './migration.type';

// The migrations are a system service: operators reach them through ctx.system() (see src/context.ts).
declare module '../context' {
  interface SystemServices {
    migrations: Migrations;
  }
}

/** A migration's overview as the API shows it. */
function toMigration(overview: MigrationOverview): Migration {
  const { migration, state, jobId, appliedAt, jobStatus, progress, counts, rewriteRate, itemsPerSecond } = overview;
  return {
    id: migration.id,
    name: migration.name,
    description: migration.description,
    entities: [...migration.entities],
    state: MigrationState[state],
    itemsPerSecond,
    segments: migration.segments,
    jobId,
    jobStatus,
    progress,
    counts,
    rewriteRate,
    appliedAt,
  };
}

/** The most samples the drift check returns per entity type. */
const MAX_SAMPLES = 50;

@Resolver()
export class MigrationResolver {
  @Authorized(Role.OPERATOR)
  @Query(() => [Migration], {
    description:
      'Every migration of the table (operators only), in number order, with where it stands and its job’s figures. See docs/operations.md.',
  })
  async migrations(@Ctx() ctx: Context): Promise<Migration[]> {
    return (await ctx.system().migrations.overview()).map(toMigration);
  }

  @Authorized(Role.OPERATOR)
  @Mutation(() => [Migration], {
    description:
      'Starts the first migration not applied (operators only): a system job the server runs in parallel segments, within the declared write budget (itemsPerSecond replaces it for this run); a failed one is taken up again from its checkpoints. Each migration runs once; the next starts when one completes. Follow it with jobProgress(jobId, system: true).',
  })
  async runMigrations(
    @Arg('itemsPerSecond', () => Int, {
      nullable: true,
      description: 'The write budget of a run this starts, instead of the declared one.',
    })
    itemsPerSecond: number | null,
    @Ctx() ctx: Context,
  ): Promise<Migration[]> {
    const migrations = ctx.system().migrations;
    await migrations.runPending({ itemsPerSecond });
    return (await migrations.overview()).map(toMigration);
  }

  @Authorized(Role.OPERATOR)
  @Query(() => ModelDrift, {
    description:
      'The drift check (operators only): reads the whole table and reports, per entity type, the stored items whose key, index attributes or search words differ from what today’s declaration derives, with samples. A scan: for operators, not for a request path.',
  })
  async modelDrift(
    @Arg('maxSamples', () => Int, { nullable: true, description: `Samples per entity type, at most ${MAX_SAMPLES} (default 5).` })
    maxSamples: number | null,
    @Ctx() ctx: Context,
  ): Promise<ModelDrift> {
    if (maxSamples != null && !(Number.isInteger(maxSamples) && maxSamples >= 0 && maxSamples <= MAX_SAMPLES))
      throw badInput(`maxSamples must be a whole number from 0 to ${MAX_SAMPLES}.`, 'maxSamples');
    return driftView(await ctx.system().migrations.drift({ maxSamples: maxSamples ?? 5 }));
  }
}

/** This feature's resolvers (see src/features.ts); its service is a system one (Context.system). */
export const migrationFeature = feature({
  resolvers: [MigrationResolver],
  repositories: () => ({}),
});
