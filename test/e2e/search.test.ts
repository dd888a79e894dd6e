import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  CreateAssetDocument,
  CreateInspirationDocument,
  CreateLogDocument,
  CreateProjectDocument,
  DeleteAssetDocument,
  DeleteInspirationDocument,
  SearchDocument,
  type SearchQuery,
  UpdateAssetDocument,
  UpdateInspirationDocument,
  UpdateLogExtractionDocument,
  UpdateProjectDocument,
} from '../../src/client/gql/graphql';
import { entities } from '../../src/common/entities';
import type { Dynamo } from '../../src/infra/dynamo/client';
import { keySchemas } from '../../src/infra/dynamo/table';
import { testDynamo } from '../support/dynamo';
import { allPages, codeOf, dataOf, startTestServer, type TestServer, dynamoDocOf, STORES } from '../support/server';
import { fixture } from '../support/fixtures';
import { Client } from 'pg';
import { withTenant } from '../../src/infra/postgres/apply';
import { DEFAULT_ROLES, deriveSchema, snake } from '../../src/infra/postgres/schema';

/*
 * Full-text search (issue 19) through the real HTTP API, on each store (the word items on DynamoDB,
 * the tsvector column on PostgreSQL): word order, prefixes, accents and case; every word required;
 * ranking by fields matched; paging (with counted DynamoDB calls); another tenant's items never
 * found; the bound on a broad word; no stale words after edits and deletes. DynamoDB's own: the
 * largest units of work of the searchable entities within its 100 items, and what the word items
 * cost each write.
 */

type Hit = SearchQuery['search']['nodes'][number];

const LOGS = 24;

describe.each(STORES)('search, on %s', (store) => {
  let server: TestServer;
  let dynamo: Dynamo;
  /** On PostgreSQL: a connection as the server's role, to read the rows' words. */
  let pg: Client;
  const derived = deriveSchema(entities);
  let a: string;
  let b: string;
  const ids: Record<string, string> = {};
  const logIds: string[] = [];

  const idOf = (hit: Hit): string => {
    const node = hit.entity;
    if (node.__typename === 'Project') return node.projectId;
    if (node.__typename === 'Log') return node.logId;
    if (node.__typename === 'Asset') return node.assetId;
    if (node.__typename === 'Inspiration') return node.inspirationId;
    throw new Error(`unexpected ${node.__typename}`);
  };

  async function search(text: string, token = a, extra: { types?: ('PROJECT' | 'LOG' | 'ASSET' | 'INSPIRATION')[]; first?: number } = {}) {
    const { nodes } = await allPages(
      async (after) => dataOf(await server.request(SearchDocument, { text, first: extra.first ?? 100, after, ...extra }, token)).search,
    );
    return nodes;
  }

  /** The items stored under a partition of the table (the base table, or an index). */
  async function partition(pk: string, index?: 'GSI2'): Promise<Record<string, unknown>[]> {
    const attribute = index ? keySchemas[index].pk : 'PK';
    const out = await dynamo.doc.send(
      new QueryCommand({
        TableName: server.config.tableName,
        IndexName: index,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': attribute },
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    return out.Items ?? [];
  }

  /**
   * The words stored for one entity: its word items by slot on DynamoDB; on PostgreSQL the lexemes
   * of its row's tsvector (sorted), none when it has no row.
   */
  async function wordItemsOf(tenant: string, subjectId: string): Promise<string[]> {
    if (store === 'dynamodb')
      return partition(entities.SearchWord.key.pkOf(tenant, { subjectId })).then((items) => items.map((item) => String(item.word)));
    const table = derived.tables.find((t) => {
      const model = entities[t.entity as keyof typeof entities];
      return model.search && subjectId.startsWith(`${model.idPrefix}_`);
    })!;
    const idColumn = snake(entities[table.entity as keyof typeof entities].idField);
    const out = await withTenant(pg, tenant, () =>
      pg.query(`SELECT tsvector_to_array(search_vector) AS words FROM ${DEFAULT_ROLES.schema}.${table.name} WHERE ${idColumn} = $1`, [
        subjectId,
      ]),
    );
    return out.rows[0]?.words ?? [];
  }

  /** The slots an entity records (its stored item, read directly). */
  async function slotsOf(pk: string, sk: string): Promise<string[]> {
    const items = await partition(pk);
    const item = items.find((i) => i.SK === sk);
    return Array.isArray(item?.searchSlots) ? item.searchSlots.map(String) : [];
  }

  beforeAll(async () => {
    // The counted pages must hold only their own calls: no outbox sweep, job-settle sweep (a Query
    // a shard every 10 s), idle system-job look (a Query every 30 s) or plan read of the rate
    // budgets (a GetItem once the plan is 5 s old) may land in their window.
    server = await startTestServer({
      store,
      env: { OUTBOX_SWEEP_MS: '3600000', JOB_SETTLE_SWEEP_MS: '3600000', SYSTEM_JOB_IDLE_MS: '3600000', TENANT_RATE_LIMITS: 'off' },
    });
    if (store === 'dynamodb') dynamo = fixture('DynamoDB client', testDynamo(), (d) => d.client.destroy());
    else {
      pg = fixture('PostgreSQL client', new Client({ connectionString: server.config.postgres!.url }), (c) => c.end());
      await pg.connect();
    }
    a = await server.token('search-a');
    b = await server.token('search-b');
    const project = async (title: string, token = a) =>
      dataOf(await server.request(CreateProjectDocument, { input: { title } }, token)).createProject.projectId;
    ids.watercolor = await project('Watercolor Sunset');
    ids.portrait = await project('Ölgemälde: Portrait of a Café owner');
    ids.mural = await project('Boulevard mural');
    for (let n = 0; n < LOGS; n++) {
      const log = dataOf(
        await server.request(
          CreateLogDocument,
          {
            projectId: ids.mural,
            input: { rawText: `Day ${n}: blocked in the sunset sky, second wash`, materials: ['Ultramarine blue', 'Cold press paper'] },
          },
          a,
        ),
      ).createLog;
      logIds.push(log.logId);
    }
    // In two fields: its materials and its text.
    ids.logBoth = dataOf(
      await server.request(
        CreateLogDocument,
        { projectId: ids.watercolor, input: { rawText: 'Glazed the SUNSET with rose madder', materials: ['Sunset orange gouache'] } },
        a,
      ),
    ).createLog.logId;
    ids.asset = dataOf(
      await server.request(
        CreateAssetDocument,
        {
          projectId: ids.watercolor,
          input: { type: 'IMAGE', s3Key: 'tenants/search-a/sunset.png', alt: 'A sunset over the lake', ocr: 'SUNSET LAKE, 2026' },
        },
        a,
      ),
    ).createAsset.assetId;
    ids.inspiration = dataOf(
      await server.request(
        CreateInspirationDocument,
        { input: { type: 'TEXT', text: 'Un café au coucher du soleil (sunset)', tags: ['Sunset', 'cafés'] } },
        a,
      ),
    ).createInspiration.inspirationId;
    // Tenant B has the same words; none of it may ever show in A's results, nor A's in B's.
    ids.bProject = await project('Watercolor Sunset', b);
    ids.bInspiration = dataOf(
      await server.request(CreateInspirationDocument, { input: { type: 'TEXT', text: 'sunset café', tags: ['sunset'] } }, b),
    ).createInspiration.inspirationId;
  }, 120_000);

  it('finds words in any order, by prefix, ignoring case and accents', async () => {
    const forward = (await search('watercolor sunset')).map(idOf);
    expect(forward).toEqual([ids.watercolor]);
    expect((await search('SUNS WATER')).map(idOf)).toEqual(forward);
    expect((await search('sun Wat')).map(idOf)).toEqual(forward);
    // Ölgemälde is found as olgemalde, ÖLGEMÄLDE and ölgem; café as cafe and CAFÉ.
    for (const text of ['olgemalde', 'ÖLGEMÄLDE', 'ölgem', 'oLgEm portrait'])
      expect((await search(text)).map(idOf)).toEqual([ids.portrait]);
    expect((await search('CAFÉ')).map(idOf).sort()).toEqual([ids.portrait, ids.inspiration].sort());
    expect((await search('cafe')).map(idOf).sort()).toEqual([ids.portrait, ids.inspiration].sort());
    // A prefix matches the start of a word only, never its middle.
    expect(await search('color')).toEqual([]);
  });

  it('requires every word', async () => {
    expect((await search('portrait owner')).map(idOf)).toEqual([ids.portrait]);
    expect(await search('portrait sunset')).toEqual([]);
    expect(await search('watercolor zebra')).toEqual([]);
    const both = (await search('sunset rose')).map(idOf);
    expect(both).toEqual([ids.logBoth]);
  });

  it('ranks by the number of fields matched, then newest first, and pages through every hit with one Query and one BatchGetItem a page', async () => {
    const calls: Record<string, number>[] = [];
    const { nodes, sizes } = await allPages(async (after) => {
      await server.resetCalls();
      const page = dataOf(await server.request(SearchDocument, { text: 'sunset', first: 10, after }, a)).search;
      calls.push(Object.fromEntries(server.app.calls.byCommand));
      return page;
    });
    const hitIds = nodes.map(idOf);
    // The 24 logs, the log in two fields, the asset, the inspiration and the project: each once.
    expect(new Set(hitIds).size).toBe(hitIds.length);
    expect(hitIds).toHaveLength(LOGS + 4);
    expect(sizes).toEqual([10, 10, 8]);
    if (store === 'dynamodb') expect(calls).toEqual(sizes.map(() => ({ QueryCommand: 1, BatchGetItemCommand: 1 })));
    // Two fields first (newest first among them), then one field (newest first).
    expect(nodes.map((n) => n.score)).toEqual([2, 2, 2, ...Array(LOGS + 1).fill(1)]);
    expect(hitIds.slice(0, 3)).toEqual([ids.inspiration, ids.asset, ids.logBoth]);
    expect(hitIds.slice(3)).toEqual([...logIds].reverse().concat(ids.watercolor));
    const byId = new Map(nodes.map((n) => [idOf(n), n]));
    expect(byId.get(ids.asset)?.matchedFields).toEqual(['alt', 'ocr']);
    expect(byId.get(ids.logBoth)?.matchedFields).toEqual(['materials', 'rawText']);
    expect(byId.get(ids.inspiration)?.matchedFields).toEqual(['tags', 'text']);
    expect(byId.get(ids.watercolor)?.matchedFields).toEqual(['title']);
    expect(byId.get(ids.watercolor)?.type).toBe('PROJECT');
    // Backward with last/before from the end meets the same ranking, and edges carry cursors.
    const backward: string[] = [];
    let before: string | null | undefined = null;
    for (let guard = 0; guard < 10; guard++) {
      const page: SearchQuery['search'] = dataOf(
        await server.request(SearchDocument, { text: 'sunset', last: 10, ...(before ? { before } : {}) }, a),
      ).search;
      backward.unshift(...page.nodes.map(idOf));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(hitIds);
    if (store === 'postgres') return;
    // Two words cost no more calls: the longest word is read, the other checked on the entities.
    await server.resetCalls();
    dataOf(await server.request(SearchDocument, { text: 'ultramarine sky', first: 10 }, a));
    expect(Object.fromEntries(server.app.calls.byCommand)).toEqual({ QueryCommand: 1, BatchGetItemCommand: 1 });
    console.log(`search "sunset": ${nodes.length} hits in pages of ${sizes.join(', ')}; DynamoDB calls per page: ${JSON.stringify(calls)}`);
  });

  it('filters by type', async () => {
    const logs = await search('sunset', a, { types: ['LOG'] });
    expect(logs).toHaveLength(LOGS + 1);
    expect(new Set(logs.map((n) => n.entity.__typename))).toEqual(new Set(['Log']));
    const some = await search('sunset', a, { types: ['PROJECT', 'ASSET'] });
    expect(some.map(idOf)).toEqual([ids.asset, ids.watercolor]);
  });

  it("never finds another tenant's items, and refuses its cursors", async () => {
    const inB = (await search('sunset', b)).map(idOf).sort();
    expect(inB).toEqual([ids.bProject, ids.bInspiration].sort());
    const inA = (await search('sunset', a)).map(idOf);
    expect(inA).not.toContain(ids.bProject);
    expect(inA).not.toContain(ids.bInspiration);
    const page = dataOf(await server.request(SearchDocument, { text: 'sunset', first: 1 }, a)).search;
    expect(codeOf(await server.request(SearchDocument, { text: 'sunset', first: 1, after: page.pageInfo.endCursor }, b))).toBe(
      'BAD_USER_INPUT',
    );
    // Nor is a cursor of one search valid for another.
    expect(codeOf(await server.request(SearchDocument, { text: 'sunsets', first: 1, after: page.pageInfo.endCursor }, a))).toBe(
      'BAD_USER_INPUT',
    );
  });

  it('refuses text without words, too many words and a bad page size with BAD_USER_INPUT', async () => {
    for (const text of ['', '   ', '!!! ---', 'a b c d e f g h i']) {
      expect(codeOf(await server.request(SearchDocument, { text }, a))).toBe('BAD_USER_INPUT');
    }
    expect(codeOf(await server.request(SearchDocument, { text: 'sunset', first: 0 }, a))).toBe('BAD_USER_INPUT');
    expect(codeOf(await server.request(SearchDocument, { text: 'sunset', first: 101 }, a))).toBe('BAD_USER_INPUT');
  });

  it('refuses a query word that starts more than 1000 words of the tenant, and answers a longer one', async () => {
    const broad = await server.token('search-broad');
    // 32 projects of 32 distinct words each, all starting with q: 1024 word items under "q".
    for (let p = 0; p < 32; p++) {
      const title = Array.from({ length: 32 }, (_, w) => `q${p.toString(36)}${w.toString(36)}`).join(' ');
      dataOf(await server.request(CreateProjectDocument, { input: { title } }, broad));
    }
    const tooBroad = await server.request(SearchDocument, { text: 'q' }, broad);
    expect(codeOf(tooBroad)).toBe('BAD_USER_INPUT');
    expect(tooBroad.errors?.[0]?.message).toContain('"q" starts more than 1000 words');
    const narrow = dataOf(await server.request(SearchDocument, { text: 'q1 Q1A' }, broad)).search.nodes;
    expect(narrow).toHaveLength(1);
  });

  it('leaves no stale word item after an edit or a delete', async () => {
    const project = await server.request(
      UpdateProjectDocument,
      { projectId: ids.mural, expectedVersion: 1, input: { title: 'Boulevard fresco' } },
      a,
    );
    expect(dataOf(project).updateProject.title).toBe('Boulevard fresco');
    expect(await search('mural')).toEqual([]);
    expect((await search('fresco boul')).map(idOf)).toEqual([ids.mural]);
    expect(await wordItemsOf('search-a', ids.mural)).toEqual(['boulevard', 'fresco']);
    if (store === 'dynamodb') {
      // The word index holds no item of the old word for any entity.
      const muralWords = await partition(`TENANT#search-a#WORD#m`, 'GSI2');
      expect(muralWords.filter((w) => String(w.word).startsWith('mural'))).toEqual([]);
    }

    const log = await server.request(
      UpdateLogExtractionDocument,
      { projectId: ids.watercolor, logId: ids.logBoth, expectedVersion: 1, input: { materials: ['Cadmium red'] } },
      a,
    );
    expect(dataOf(log).updateLogExtraction.materials).toEqual(['Cadmium red']);
    expect(await search('gouache')).toEqual([]);
    expect((await search('cadmium glazed')).map(idOf)).toEqual([ids.logBoth]);
    const logHit = (await search('sunset', a, { types: ['LOG'] })).find((n) => idOf(n) === ids.logBoth);
    expect(logHit?.matchedFields).toEqual(['rawText']);
    expect((await wordItemsOf('search-a', ids.logBoth)).sort()).toEqual(
      ['cadmium', 'red', 'glazed', 'the', 'sunset', 'with', 'rose', 'madder'].sort(),
    );

    dataOf(
      await server.request(
        UpdateAssetDocument,
        { projectId: ids.watercolor, assetId: ids.asset, expectedVersion: 1, input: { ocr: null } },
        a,
      ),
    );
    expect((await search('lake')).map((n) => n.matchedFields)).toEqual([['alt']]);
    expect(await search('2026')).toEqual([]);

    dataOf(
      await server.request(
        UpdateInspirationDocument,
        { inspirationId: ids.inspiration, expectedVersion: 1, input: { tags: ['dusk'], text: 'Evening light' } },
        a,
      ),
    );
    expect(await search('soleil')).toEqual([]);
    expect((await search('dusk evening')).map(idOf)).toEqual([ids.inspiration]);
    expect((await wordItemsOf('search-a', ids.inspiration)).sort()).toEqual(['dusk', 'evening', 'light']);

    dataOf(await server.request(DeleteAssetDocument, { projectId: ids.watercolor, assetId: ids.asset }, a));
    dataOf(await server.request(DeleteInspirationDocument, { inspirationId: ids.inspiration }, a));
    expect(await search('lake')).toEqual([]);
    expect(await search('dusk')).toEqual([]);
    expect(await wordItemsOf('search-a', ids.asset)).toEqual([]);
    expect(await wordItemsOf('search-a', ids.inspiration)).toEqual([]);
    if (store === 'postgres') {
      // PostgreSQL keeps the words in the rows' tsvector only: no word row was ever written.
      const rows = await withTenant(pg, 'search-a', () => pg.query(`SELECT count(*)::int AS n FROM ${DEFAULT_ROLES.schema}.search_words`));
      expect(rows.rows[0].n).toBe(0);
      return;
    }
    for (const initial of ['l', 'd', 'e', 's']) {
      const items = await partition(`TENANT#search-a#WORD#${initial}`, 'GSI2');
      expect(items.filter((w) => w.SK !== undefined && [ids.asset, ids.inspiration].some((id) => String(w.PK).endsWith(id)))).toEqual([]);
    }
  });

  // DynamoDB's own: a transaction holds at most 100 items, and each word item is a write it pays for.
  if (store === 'dynamodb') {
    it("fits each searchable entity's largest change in one transaction, and writes only the words that change", async () => {
      const words = (prefix: string, n: number) =>
        Array.from({ length: n }, (_, i) => `${prefix}${String.fromCharCode(97 + (i % 26))}${i}`);
      // An inspiration with 30 tags and more words than it indexes, then every tag and word replaced.
      const tags = words('tag', 30);
      const created = dataOf(
        await server.request(CreateInspirationDocument, { input: { type: 'TEXT', text: words('old', 50).join(' '), tags } }, a),
      ).createInspiration;
      expect(await wordItemsOf('search-a', created.inspirationId)).toHaveLength(entities.Inspiration.search?.maxWords ?? 0);
      const replaced = await server.request(
        UpdateInspirationDocument,
        { inspirationId: created.inspirationId, expectedVersion: 1, input: { tags: words('new', 30), text: words('fresh', 50).join(' ') } },
        a,
      );
      expect(dataOf(replaced).updateInspiration.version).toBe(2);
      expect((await search('newa0')).map(idOf)).toEqual([created.inspirationId]);
      expect(await search('taga0')).toEqual([]);

      // A log with 25 materials of several words each, then all of them replaced.
      const materials = (prefix: string) => Array.from({ length: 25 }, (_, i) => `${prefix} pigment ${i} ${'x'.repeat(i)}`);
      const log = dataOf(
        await server.request(
          CreateLogDocument,
          { projectId: ids.watercolor, input: { rawText: words('text', 60).join(' '), materials: materials('ochre') } },
          a,
        ),
      ).createLog;
      expect(await wordItemsOf('search-a', log.logId)).toHaveLength(entities.Log.search?.maxWords ?? 0);
      const pk = entities.Log.key.pkOf('search-a', {});
      const sk = entities.Log.keyOf('search-a', { projectId: ids.watercolor, logId: log.logId }).SK;
      const before = await slotsOf(pk, sk);
      // Every material replaced by words the log never had: all its word slots change at once.
      const fresh = Array.from({ length: 25 }, (_, i) => `umber${i} shade${i}`);
      dataOf(
        await server.request(
          UpdateLogExtractionDocument,
          { projectId: ids.watercolor, logId: log.logId, expectedVersion: 1, input: { materials: fresh } },
          a,
        ),
      );
      const after = await slotsOf(pk, sk);
      const changed = after.filter((word, slot) => before[slot] !== word).length;
      expect(changed).toBe(entities.Log.search?.maxWords);
      expect((await search('umber3 shade3')).map(idOf)).toEqual([log.logId]);
      expect(await search('ochre')).toEqual([]);
      // A title change of one word rewrites one slot.
      const titleBefore = await slotsOf(entities.Project.key.pkOf('search-a', {}), `PROJECT#${ids.portrait}`);
      dataOf(
        await server.request(
          UpdateProjectDocument,
          { projectId: ids.portrait, expectedVersion: 1, input: { title: 'Ölgemälde: Portrait of a Café owner, final' } },
          a,
        ),
      );
      const titleAfter = await slotsOf(entities.Project.key.pkOf('search-a', {}), `PROJECT#${ids.portrait}`);
      expect(titleAfter.filter((word, slot) => titleBefore[slot] !== word)).toEqual(['final']);
      console.log(`log materials replaced: ${changed} of ${after.length} word slots rewritten; a one-word title change: 1`);
    });

    it('measures what the word index adds to each write of each searchable entity, with typical text', async () => {
      // The transactions the server sends, captured from its own DynamoDB client (read only).
      const sent: { TransactItems?: { Put?: { Item: Record<string, unknown> }; Delete?: { Key: Record<string, unknown> } }[] }[] = [];
      const doc = dynamoDocOf(server.app);
      doc.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === 'TransactWriteItemsCommand') sent.push(structuredClone(args.input) as (typeof sent)[number]);
          return next(args);
        },
        { step: 'initialize', name: 'searchCostProbe' },
      );
      /** The DynamoDB size of an item (attribute names and values, UTF-8), as DynamoDB bills it. */
      const sizeOf = (value: unknown): number => {
        if (typeof value === 'string') return Buffer.byteLength(value);
        if (typeof value === 'number') return Math.ceil(String(value).length / 2) + 1;
        if (typeof value === 'boolean' || value == null) return 1;
        if (Array.isArray(value)) return 3 + value.reduce((n: number, v) => n + 1 + sizeOf(v), 0);
        return 3 + Object.entries(value).reduce((n, [k, v]) => n + 1 + Buffer.byteLength(k) + sizeOf(v), 0);
      };
      const cost = async (write: () => Promise<unknown>) => {
        sent.length = 0;
        await write();
        const items = sent.flatMap((tx) => tx.TransactItems ?? []);
        const words = items.filter((w) => String((w.Put?.Item ?? w.Delete?.Key)?.PK).includes('#SEARCH#'));
        const puts = words.flatMap((w) => (w.Put ? [sizeOf(w.Put.Item)] : []));
        const entity = items.find((w) => w.Put?.Item.searchSlots)?.Put?.Item;
        return {
          items: items.length,
          wordItems: words.length,
          wordBytes: puts.length ? Math.round(puts.reduce((x, y) => x + y, 0) / puts.length) : 0,
          slotsBytes: entity ? sizeOf(entity.searchSlots) : 0,
        };
      };
      const rawText =
        'Spent the afternoon on the harbor piece. Laid a graded wash for the sky with ultramarine and burnt sienna, ' +
        'let it dry, then glazed the water twice. The cold press paper buckled a little near the edge; next time stretch it first. ' +
        'About two and a half hours in all, mostly waiting for washes to dry.';
      const figures: Record<string, Awaited<ReturnType<typeof cost>>> = {};
      let projectId = '';
      figures['Project create (title of 5 words)'] = await cost(async () => {
        projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Harbor at dusk, watercolor study' } }, a))
          .createProject.projectId;
      });
      figures['Project update (one title word changed)'] = await cost(() =>
        server.request(UpdateProjectDocument, { projectId, expectedVersion: 1, input: { title: 'Harbor at dawn, watercolor study' } }, a),
      );
      let logId = '';
      figures[`Log create (${rawText.split(' ').length}-word text, 3 materials)`] = await cost(async () => {
        logId = dataOf(
          await server.request(
            CreateLogDocument,
            { projectId, input: { rawText, materials: ['Ultramarine blue', 'Burnt sienna', 'Cold press paper'], timeSpentMinutes: 150 } },
            a,
          ),
        ).createLog.logId;
      });
      figures['Log updateExtraction (one material added)'] = await cost(() =>
        server.request(
          UpdateLogExtractionDocument,
          {
            projectId,
            logId,
            expectedVersion: 1,
            input: { materials: ['Ultramarine blue', 'Burnt sienna', 'Cold press paper', 'Masking fluid'] },
          },
          a,
        ),
      );
      let assetId = '';
      figures['Asset create (alt of 9 words, OCR of 4)'] = await cost(async () => {
        assetId = dataOf(
          await server.request(
            CreateAssetDocument,
            {
              projectId,
              input: {
                type: 'IMAGE',
                s3Key: 'tenants/search-a/harbor.jpg',
                alt: 'The harbor at dawn, boats in a graded wash',
                ocr: 'HARBOR STUDY No 3',
              },
            },
            a,
          ),
        ).createAsset.assetId;
      });
      figures['Asset update (alt rewritten, 3 words changed)'] = await cost(() =>
        server.request(
          UpdateAssetDocument,
          { projectId, assetId, expectedVersion: 1, input: { alt: 'The harbor at dusk, fishing boats in a glazed wash' } },
          a,
        ),
      );
      let inspirationId = '';
      figures['Inspiration create (12-word text, 3 tags)'] = await cost(async () => {
        inspirationId = dataOf(
          await server.request(
            CreateInspirationDocument,
            {
              input: {
                type: 'TEXT',
                text: 'Turner’s late harbor scenes: light dissolving the boats into the fog',
                tags: ['turner', 'harbor', 'fog'],
              },
            },
            a,
          ),
        ).createInspiration.inspirationId;
      });
      figures['Inspiration update (one tag replaced)'] = await cost(() =>
        server.request(UpdateInspirationDocument, { inspirationId, expectedVersion: 1, input: { tags: ['turner', 'harbor', 'mist'] } }, a),
      );
      figures['Asset delete'] = await cost(() => server.request(DeleteAssetDocument, { projectId, assetId }, a));
      doc.middlewareStack.remove('searchCostProbe');
      console.log(
        `word index cost per write (items in the transaction, of them word items, average word item bytes, searchSlots bytes on the entity):\n${Object.entries(
          figures,
        )
          .map(([what, f]) => `  ${what}: ${f.items} items, ${f.wordItems} word items, ${f.wordBytes} B each, slots ${f.slotsBytes} B`)
          .join('\n')}`,
      );
      expect(figures['Project create (title of 5 words)'].wordItems).toBe(5);
      expect(figures['Project update (one title word changed)'].wordItems).toBe(1);
      expect(figures['Log updateExtraction (one material added)'].wordItems).toBe(2);
      expect(figures['Inspiration update (one tag replaced)'].wordItems).toBe(1);
      // The update added one word (fishing) to the 12: the delete removes all 13.
      expect(figures['Asset create (alt of 9 words, OCR of 4)'].wordItems).toBe(12);
      expect(figures['Asset delete'].wordItems).toBe(13);
      // Every word item is far below the 1 KB of one write unit.
      for (const f of Object.values(figures)) expect(f.wordBytes).toBeLessThan(1024);
    });
  }
});
