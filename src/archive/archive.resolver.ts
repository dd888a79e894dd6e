import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import { type ArchiveRuns, feature } from '../common/feature';
import type { Context } from '../context';
import { keyArg } from '../common/standard-resolver';
import { AppError, ErrorCode } from '../errors';
import { Project } from '../project/project.type';
import { ArchiveRepository } from './archive.repository';
import { ArchivedJob, ArchiveRun } from './archive.type';

declare module '../context' {
  interface Repositories {
    archive: ArchiveRepository;
    /** The server's archive runs; absent in offline tools. */
    archiveRuns?: ArchiveRuns;
  }
}

@Resolver()
export class ArchiveResolver {
  @Authorized()
  @Query(() => ArchivedJob, {
    nullable: true,
    description:
      'A finished job of your tenant that the archive moved to cold storage (90 days after it finished, by default), read back with its steps, items and events; null when it is not there.',
  })
  archivedJob(@keyArg('jobId') jobId: string, @Ctx() ctx: Context) {
    return ctx.repos.archive.job(jobId);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Project, {
    description:
      'Puts an archived project of your tenant that the archive moved to cold storage back in the table, exactly as it was (still archived, readable and listed with archived: true); the archive leaves it there until it changes. NOT_FOUND when it is not in cold storage; CONFLICT when it is in the table.',
  })
  restoreProject(@keyArg('projectId') projectId: string, @Ctx() ctx: Context) {
    return ctx.repos.archive.restoreProject(projectId);
  }

  @Authorized(Role.OPERATOR)
  @Mutation(() => ArchiveRun, {
    description:
      "Operators only: runs the archive now (finished jobs and archived projects past the retention go to cold storage) as a system job of kind ARCHIVE, run by any instance's system-job runner; joins the run under way instead when there is one (whoever started it), so concurrent calls get one run. Waits for it within the request's budget and answers its result; when the budget ends first, its status and counts so far (call again with its jobId to go on waiting, or follow jobProgress(jobId, system: true)). NOT_FOUND when jobId names no archive job.",
  })
  async runArchive(
    @Ctx() ctx: Context,
    @Arg('jobId', () => ID, {
      nullable: true,
      description: 'An archive run to wait for (as an earlier runArchive answered it) instead of starting or joining one.',
    })
    jobId?: string | null,
  ) {
    const runs = ctx.system().repos.archiveRuns;
    if (!runs) throw new AppError(ErrorCode.INTERNAL, 'This server has no archive runner.');
    const outcome = await runs.runNow(jobId ?? undefined);
    if (!outcome) throw new AppError(ErrorCode.NOT_FOUND, `No archive run ${jobId}.`);
    return outcome;
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const archiveFeature = feature({
  resolvers: [ArchiveResolver],
  repositories: (scope, _repos, deps) => ({ archive: new ArchiveRepository(scope), archiveRuns: deps.archive }),
});
