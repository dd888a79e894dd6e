import { Args, Authorized, Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { feature } from '../common/feature';
import { orList } from '../common/model-types';
import { pageRequest } from '../common/pagination';
import { maxItems } from '../common/validate';
import type { Context } from '../context';
import { SearchRepository } from './search.repository';
import { Node } from '../common/node.type';
import { searchableModels } from '../common/search';
import { SearchArgs, SearchConnection, SearchHit } from './search.type';

// This feature adds its repository to ctx.repos itself, so that the context imports no feature (see src/context.ts).
declare module '../context' {
  interface Repositories {
    search: SearchRepository;
  }
}

@Resolver()
export class SearchResolver {
  @Authorized()
  @Query(() => SearchConnection, {
    description:
      "Full-text search of your tenant's project titles, log texts and materials, inspiration texts and tags, and asset alt and OCR texts: every word of text must start a word of the entity (case and accents ignored). Ranked by how many fields matched, then newest first. Through a word index, never a scan; see docs/search.md for its limits.",
  })
  search(@Args(() => SearchArgs) args: SearchArgs, @Ctx() ctx: Context) {
    return ctx.repos.search.search(args.text, maxItems(args.types, 'types', 10), pageRequest(args));
  }
}

@Resolver(() => SearchHit)
export class SearchHitResolver {
  // Read when asked for, as a promise: resolved by a resolver of its own so compiled queries await it.
  @FieldResolver(() => Node, {
    description: `The entity found: a ${orList([...searchableModels.keys()])} (ask with \`... on Log { … }\`).`,
  })
  entity(@Root() hit: SearchHit): object {
    return hit.entity;
  }
}

/** This feature's resolvers and repositories (see src/features.ts). */
export const searchFeature = feature({
  resolvers: [SearchResolver, SearchHitResolver],
  repositories: (scope) => ({ search: new SearchRepository(scope) }),
});
