import { Arg, Args, Authorized, Ctx, Field, InputType, Int, Mutation, Query, Resolver } from 'type-graphql';
import { Role } from '../auth/principal';
import { entities } from '../common/entities';
import { feature } from '../common/feature';
import { keyArg, standardResolver } from '../common/standard-resolver';
import { attributeEnum, modelTypes } from '../common/model-types';
import { pageRequest, ProjectPageArgs } from '../common/pagination';
import { Selected, type Selection } from '../common/projection';
import type { Context } from '../context';
import { type ApprovalDecision, type BriefVersionContent, BriefRepository } from './brief.repository';

/*
 * A brief's types come from its declaration (src/common/entities.ts); what is particular to it is
 * how a version is made: its content with a changelog entry, numbered by the server.
 */
const { type: Brief, connection: BriefConnection, createInput } = modelTypes(entities.Brief);
const decision = attributeEnum(entities.Brief, 'decision', entities.Brief.attributes.approvals.listOf.fields.decision);

@InputType('CreateBriefVersionInput', {
  description: 'The content of a new brief version; the server numbers it and adds the changelog entry.',
})
export class CreateBriefVersionInput extends createInput implements BriefVersionContent {
  // Declared attributes of the brief (requirements, deliverables), typed here for the repository.
  declare requirements: string[];
  declare deliverables: string[];

  @Field({ description: 'What changed in this version, for the changelog.' })
  changelogEntry!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'The latest version you saw (0 for none); CONFLICT if another version was added since.',
  })
  expectedLatestVersion?: number | null;
}

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    briefs: BriefRepository;
  }
}

/** A brief's create, which adds a version (see standard-resolver.ts); a version is never changed or deleted. */
const BriefStandard = standardResolver(entities.Brief, {
  create: (ctx, [projectId], input: CreateBriefVersionInput, key) => ctx.repos.briefs.createVersion(projectId, input, key),
  names: { create: 'createBriefVersion' },
  inputs: { create: CreateBriefVersionInput },
});

@Resolver(() => Brief)
export class BriefResolver {
  @Authorized()
  @Query(() => Brief, { nullable: true, description: 'One version of the brief, the latest when version is omitted.' })
  brief(
    @keyArg('projectId') projectId: string,
    @Arg('version', () => Int, { nullable: true, description: 'The version number; the latest when omitted.' }) version: number | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.briefs.get(projectId, version);
  }

  @Authorized()
  @Query(() => BriefConnection, { description: 'All versions, newest first.' })
  briefVersions(@Args(() => ProjectPageArgs) args: ProjectPageArgs, @Ctx() ctx: Context, @Selected() selection: Selection | undefined) {
    return ctx.repos.briefs.list(args.projectId, pageRequest(args), selection);
  }

  @Authorized(Role.EDITOR)
  @Mutation(() => Brief, { description: 'Records an approval decision on one version.' })
  approveBriefVersion(
    @keyArg('projectId') projectId: string,
    @Arg('version', () => Int, { description: 'The version number.' }) version: number,
    @Arg('decision', () => decision, { description: 'Approve, or ask for changes.' }) decision: ApprovalDecision,
    @Arg('comment', () => String, { nullable: true, description: 'Why, in your words; recorded in the audit trail.' }) comment:
      | string
      | null,
    @Ctx() ctx: Context,
  ) {
    return ctx.repos.briefs.approve(projectId, version, decision, comment);
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const briefFeature = feature({
  resolvers: [BriefStandard, BriefResolver],
  repositories: (scope, { projects }) => ({ briefs: new BriefRepository(scope, projects) }),
  nodes: {
    Brief: {
      type: Brief,
      load: async (repos, v) => {
        const version = Number(v.version);
        return Number.isInteger(version) && version > 0 ? repos.briefs.get(v.projectId, version) : null;
      },
    },
  },
});
