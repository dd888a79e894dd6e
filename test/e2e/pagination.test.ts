import { Role, STORES, startTestServer, type TestServer } from '../support/server';

/*
 * The Cursor Connections spec as the server implements it: edges with a cursor each, PageInfo's
 * four fields, and last/before on the lists read by one query (the same DynamoDB query read in
 * reverse, the page turned back into list order). Checked on a list in creation order
 * (logsConnection), on newest-first lists (jobs, activity), and for a cursor carried to another
 * tenant or list, both ways. A contract test: every case runs on each store (DynamoDB, PostgreSQL).
 */

interface Edge {
  cursor: string;
  node: { id: string };
}
interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}
interface Conn {
  edges: Edge[];
  nodes: { id: string }[];
  pageInfo: PageInfo;
}

/** The variable definitions a query with `args` needs: $c only where the arguments use it. */
const defs = (args: string) => `$p: ID!${args.includes('$c') ? ', $c: String' : ''}${args.includes('$n') ? ', $n: Int' : ''}`;

const PAGE = 'edges { cursor node { id } } nodes { id } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }';

describe.each(STORES)('Cursor Connections: edges, PageInfo and last/before, on %s', (store) => {
  let server: TestServer;
  let a: string;
  let b: string;
  let projectId: string;
  let otherProjectId: string;
  /** The global ids of A's logs, oldest first, and of its jobs, newest first. */
  let logs: string[];
  let jobs: string[];

  const send = async (query: string, variables: Record<string, unknown> = {}, token = a) =>
    (await server.raw({ query, variables }, token)).body;
  const data = async (query: string, variables: Record<string, unknown> = {}, token = a) => {
    const body = await send(query, variables, token);
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };
  const logsPage = async (args: string, variables: Record<string, unknown> = {}): Promise<Conn> =>
    (
      await data(`query(${defs(args)}) { logsConnection(projectId: $p, ${args}) { ${PAGE} } }`, {
        p: projectId,
        ...variables,
      })
    ).logsConnection;

  beforeAll(async () => {
    server = await startTestServer({ store });
    a = await server.token('page-a', [Role.EDITOR]);
    b = await server.token('page-b', [Role.EDITOR]);
    projectId = (await data('mutation { createProject(input: { title: "Pages" }) { projectId } }')).createProject.projectId;
    otherProjectId = (await data('mutation { createProject(input: { title: "B" }) { projectId } }', {}, b)).createProject.projectId;
    logs = [];
    for (let n = 1; n <= 7; n++) {
      const created = await data('mutation($p: ID!, $t: String) { createLog(projectId: $p, input: { rawText: $t }) { id } }', {
        p: projectId,
        t: `log ${n}`,
      });
      logs.push(created.createLog.id);
    }
    const made: string[] = [];
    for (let n = 1; n <= 5; n++) {
      const created = await data(
        `mutation($p: ID!) { createJob(input: { projectId: $p, kind: "K", steps: ["s"], inputs: { n: ${n} } }) { id } }`,
        { p: projectId },
      );
      made.push(created.createJob.id);
    }
    jobs = made.reverse();
  });

  it('gives every edge a cursor and PageInfo its four fields on a forward page', async () => {
    const page = await logsPage('first: 3');
    expect(page.edges.map((e) => e.node.id)).toEqual(logs.slice(0, 3));
    expect(page.nodes.map((n) => n.id)).toEqual(logs.slice(0, 3));
    expect(new Set(page.edges.map((e) => e.cursor)).size).toBe(3);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: page.edges[0].cursor,
      endCursor: page.edges[2].cursor,
    });
    // Any edge's cursor pages on from that edge.
    const next = await logsPage('first: 2, after: $c', { c: page.edges[1].cursor });
    expect(next.edges.map((e) => e.node.id)).toEqual(logs.slice(2, 4));
    expect(next.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  });

  it('walks a list backward with last/before, each page in list order, and meets the forward walk', async () => {
    const seen: string[][] = [];
    let page = await logsPage('last: 3');
    expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    seen.push(page.edges.map((e) => e.node.id));
    while (page.pageInfo.hasPreviousPage) {
      page = await logsPage('last: 3, before: $c', { c: page.pageInfo.startCursor });
      expect(page.pageInfo.hasNextPage).toBe(true);
      expect(page.pageInfo.startCursor).toBe(page.edges[0].cursor);
      expect(page.pageInfo.endCursor).toBe(page.edges[page.edges.length - 1].cursor);
      seen.unshift(page.edges.map((e) => e.node.id));
    }
    expect(seen).toEqual([logs.slice(0, 1), logs.slice(1, 4), logs.slice(4, 7)]);
    // A forward page's cursor is good for a backward page too: the same position in the same list.
    const forward = await logsPage('first: 5');
    const before = await logsPage('last: 2, before: $c', { c: forward.pageInfo.endCursor });
    expect(before.edges.map((e) => e.node.id)).toEqual(logs.slice(2, 4));
    // The empty end: nothing before the first item.
    const none = await logsPage('last: 2, before: $c', { c: forward.pageInfo.startCursor });
    expect(none).toMatchObject({ edges: [], pageInfo: { hasPreviousPage: false, startCursor: null, endCursor: null } });
  });

  it('reads newest-first lists backward too (jobs, activity)', async () => {
    const oldest = (await data(`query($p: ID!) { jobs(projectId: $p, last: 2) { ${PAGE} } }`, { p: projectId })).jobs;
    expect(oldest.edges.map((e: Edge) => e.node.id)).toEqual(jobs.slice(3, 5));
    const middle = (
      await data(`query($p: ID!, $c: String) { jobs(projectId: $p, last: 2, before: $c) { ${PAGE} } }`, {
        p: projectId,
        c: oldest.pageInfo.startCursor,
      })
    ).jobs;
    expect(middle.edges.map((e: Edge) => e.node.id)).toEqual(jobs.slice(1, 3));
    expect(middle.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });

    const all = (await data(`query($p: ID!) { activity(projectId: $p, first: 100) { ${PAGE} } }`, { p: projectId })).activity;
    const tail = (await data(`query($p: ID!) { activity(projectId: $p, last: 4) { ${PAGE} } }`, { p: projectId })).activity;
    expect(tail.edges.map((e: Edge) => e.node.id)).toEqual(all.edges.slice(-4).map((e: Edge) => e.node.id));
  });

  it('keeps the two directions apart within one request (the page cache keys on all four arguments)', async () => {
    const both = await data(
      `query($p: ID!) { head: logsConnection(projectId: $p, first: 2) { ${PAGE} } tail: logsConnection(projectId: $p, last: 2) { ${PAGE} } }`,
      { p: projectId },
    );
    expect(both.head.edges.map((e: Edge) => e.node.id)).toEqual(logs.slice(0, 2));
    expect(both.tail.edges.map((e: Edge) => e.node.id)).toEqual(logs.slice(5, 7));
  });

  it('refuses mixed directions, bad sizes and backward paging of merged lists with BAD_USER_INPUT or a validation error', async () => {
    const code = async (args: string, variables: Record<string, unknown> = {}) => {
      const body = await send(`query(${defs(args)}) { logsConnection(projectId: $p, ${args}) { nodes { id } } }`, {
        p: projectId,
        ...variables,
      });
      return [body.errors?.[0]?.extensions?.code, body.errors?.[0]?.extensions?.field];
    };
    expect(await code('first: 2, last: 2')).toEqual(['BAD_USER_INPUT', 'last']);
    const { endCursor } = (await logsPage('first: 1')).pageInfo;
    expect(await code('first: 2, before: $c', { c: endCursor })).toEqual(['BAD_USER_INPUT', 'before']);
    // A page size written into the document out of 1-100 is refused before anything runs, as a
    // document error (naming the argument, with the message its variable form gets).
    expect(await code('last: 0')).toEqual(['GRAPHQL_VALIDATION_FAILED', 'last']);
    expect(await code('last: 101')).toEqual(['GRAPHQL_VALIDATION_FAILED', 'last']);
    expect(await code('last: $n', { n: 101 })).toEqual(['BAD_USER_INPUT', 'last']);
    expect(await code('last: 1, before: "not-a-cursor"')).toEqual(['BAD_USER_INPUT', 'before']);
    // A cursor of another list (A's jobs) is refused as `before` of this one.
    const jobCursor = (await data('query($p: ID!) { jobs(projectId: $p, first: 1) { pageInfo { endCursor } } }', { p: projectId })).jobs
      .pageInfo.endCursor;
    expect(await code('last: 1, before: $c', { c: jobCursor })).toEqual(['BAD_USER_INPUT', 'before']);
    // The timeline may merge several queries, so it has no last/before at all.
    const timeline = await server.raw({ query: '{ timeline(last: 2) { nodes { id } } }' }, a);
    expect(timeline.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
  });

  it("refuses A's cursor as B's `before`, on B's own list and with A's project id, and shows B nothing of A's", async () => {
    const page = await logsPage('last: 3');
    for (const cursor of [page.pageInfo.startCursor, page.pageInfo.endCursor]) {
      for (const p of [otherProjectId, projectId]) {
        const body = await send(
          'query($p: ID!, $c: String) { logsConnection(projectId: $p, last: 2, before: $c) { edges { node { id rawText } } } }',
          { p, c: cursor },
          b,
        );
        expect(body.data).toBeNull();
        expect(body.errors.map((e: { extensions: { code: string; field: string } }) => [e.extensions.code, e.extensions.field])).toEqual([
          ['BAD_USER_INPUT', 'before'],
        ]);
      }
    }
    // Without A's cursor, B's backward page of A's project id is empty: the key starts with B's tenant.
    const own = await data('query($p: ID!) { logsConnection(projectId: $p, last: 5) { edges { node { id } } } }', { p: projectId }, b);
    expect(own.logsConnection.edges).toEqual([]);
  });
});
