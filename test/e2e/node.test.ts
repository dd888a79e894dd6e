import { globalIdOf } from '../../src/common/global-id';
import { dataOf, Role, startTestServer, type TestServer } from '../support/server';
import { CreateProjectDocument } from '../../src/client/gql/graphql';
import { subscribe, wsClient } from '../support/ws';

/*
 * Global object identification: every entity type has an id unique across types, and node/nodes
 * refetch any of them; another tenant's id is null, exactly like an id that names nothing.
 */
describe('node and nodes', () => {
  let server: TestServer;
  let a: string;
  let b: string;
  /** One entity of every Node type, as the API returned it with its id. */
  let entities: Array<{ type: string; id: string; key: string }>;

  const gql = async (query: string, token: string, variables: Record<string, unknown> = {}) => {
    const res = await server.raw({ query, variables }, token);
    if (res.body.errors) throw new Error(JSON.stringify(res.body.errors));
    return res.body.data;
  };

  beforeAll(async () => {
    server = await startTestServer();
    a = await server.token('node-a', [Role.EDITOR, Role.WORKER]);
    b = await server.token('node-b', [Role.EDITOR, Role.WORKER]);
    const projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Nodes' } }, a)).createProject.projectId;
    const p = `projectId: "${projectId}"`;
    const tenant = (await gql('{ tenant { id tenantId } }', a)).tenant;
    const project = (await gql(`{ project(${p}) { id projectId } }`, a)).project;
    const brief = (
      await gql(
        `mutation { createBriefVersion(${p}, input: { requirements: ["r"], deliverables: [], changelogEntry: "c" }) { id version } }`,
        a,
      )
    ).createBriefVersion;
    const milestone = (await gql(`mutation { createMilestone(${p}, input: { name: "m" }) { id milestoneId } }`, a)).createMilestone;
    const log = (await gql(`mutation { createLog(${p}, input: { rawText: "l" }) { id logId } }`, a)).createLog;
    const asset = (await gql(`mutation { createAsset(${p}, input: { type: IMAGE, s3Key: "tenants/node-a/x.jpg" }) { id assetId } }`, a))
      .createAsset;
    const inspiration = (await gql('mutation { createInspiration(input: { type: TEXT, text: "i" }) { id inspirationId } }', a))
      .createInspiration;
    const job = (
      await gql(`mutation { createJob(input: { ${p}, kind: "K", steps: ["render"] }) { id jobId steps { id name attempt } } }`, a)
    ).createJob;
    entities = [
      { type: 'Tenant', id: tenant.id, key: tenant.tenantId },
      { type: 'Project', id: project.id, key: project.projectId },
      { type: 'Brief', id: brief.id, key: String(brief.version) },
      { type: 'Milestone', id: milestone.id, key: milestone.milestoneId },
      { type: 'Log', id: log.id, key: log.logId },
      { type: 'Asset', id: asset.id, key: asset.assetId },
      { type: 'Inspiration', id: inspiration.id, key: inspiration.inspirationId },
      { type: 'Job', id: job.id, key: job.jobId },
      { type: 'Step', id: job.steps[0].id, key: job.steps[0].name },
    ];
  });

  const KEY_FIELDS = `
    ... on Tenant { tenantId } ... on Project { projectId } ... on Brief { version } ... on Milestone { milestoneId }
    ... on Log { logId } ... on Asset { assetId } ... on Inspiration { inspirationId } ... on Job { jobId } ... on Step { name }`;
  const keyOf = (node: Record<string, unknown>) => String(Object.entries(node).find(([k]) => !['id', '__typename'].includes(k))?.[1]);

  it('gives every entity type an id unique across types, the one the server builds from its key', () => {
    expect(entities.map((e) => e.type)).toHaveLength(9);
    expect(new Set(entities.map((e) => e.id)).size).toBe(entities.length);
    const project = entities.find((e) => e.type === 'Project')!;
    expect(project.id).toBe(globalIdOf('Project', { projectId: project.key }));
  });

  it('refetches each entity by id with node, and all of them in order with nodes', async () => {
    for (const entity of entities) {
      const { node } = await gql(`query($id: ID!) { node(id: $id) { id __typename ${KEY_FIELDS} } }`, a, { id: entity.id });
      expect({ type: node.__typename, id: node.id, key: keyOf(node) }).toEqual({ type: entity.type, id: entity.id, key: entity.key });
    }
    const { nodes } = await gql(`query($ids: [ID!]!) { nodes(ids: $ids) { id __typename } }`, a, {
      ids: [...entities.map((e) => e.id), globalIdOf('Log', { projectId: entities[1].key, logId: 'log_01ARZ3NDEKTSV4RRFFQ69G5FAV' })],
    });
    expect(nodes).toEqual([...entities.map((e) => ({ id: e.id, __typename: e.type })), null]);
  });

  it('gives another tenant null for every one of them, and refuses text that is no id of this server', async () => {
    const { nodes } = await gql('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', b, { ids: entities.map((e) => e.id) });
    expect(nodes).toEqual(entities.map(() => null));
    for (const entity of entities) {
      expect((await gql('query($id: ID!) { node(id: $id) { id } }', b, { id: entity.id })).node).toBeNull();
    }
    const res = await server.raw({ query: '{ node(id: "not-an-id") { id } }' }, a);
    expect(res.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(res.body.errors[0].message).toBe(
      'id "not-an-id" is no global id of this server: id takes a global id, the `id` field of an object (Project.id, Log.id, …).',
    );
    // An entity's own key, which the server did make, is named as what it is.
    const project = entities.find((e) => e.type === 'Project')!;
    const byKey = await server.raw({ query: 'query($id: ID!) { node(id: $id) { id } }', variables: { id: project.key } }, a);
    expect(byKey.body.errors[0]).toMatchObject({
      message: `id "${project.key}" is a Project's projectId, not its global id: id takes a global id, the \`id\` field of an object (Project.id, Log.id, …); read Project.id, or look it up by projectId.`,
      extensions: { code: 'BAD_USER_INPUT', field: 'id' },
    });
  });

  it('puts the whole job, with its id, and the step with its id in every job event, so a cache can take them', async () => {
    const job = entities.find((e) => e.type === 'Job')!;
    const worker = await server.token('node-a', [Role.WORKER]);
    await gql(`mutation { startStep(jobId: "${job.key}", stepName: "render") { seq } }`, worker);
    const client = wsClient(server.url, a);
    const events = subscribe(
      client,
      'subscription($id: ID!) { jobProgress(jobId: $id, afterSeq: 0) { type job { id jobId kind status seq inputs } step { id name attempt } } }',
      { id: job.key },
    );
    const [created, started] = await events.waitFor(2);
    expect(created.job).toEqual({ id: job.id, jobId: job.key, kind: 'K', status: 'QUEUED', seq: 1, inputs: null });
    expect(started.job).toMatchObject({ id: job.id, status: 'RUNNING', seq: 2 });
    expect(started.step).toEqual({
      id: globalIdOf('Step', { jobId: job.key, order: 1, name: 'render', attempt: 1 }),
      name: 'render',
      attempt: 1,
    });
  });

  it("gives every activity event its subject's global id", async () => {
    const project = entities.find((e) => e.type === 'Project')!;
    const { activity } = await gql(`{ activity(projectId: "${project.key}", first: 20) { nodes { subjectType subjectNodeId } } }`, a);
    const byType = Object.fromEntries(
      (activity.nodes as Array<{ subjectType: string; subjectNodeId: string }>).map((n) => [n.subjectType, n.subjectNodeId]),
    );
    for (const type of ['Project', 'Brief', 'Milestone', 'Log', 'Asset']) {
      expect({ type, id: byType[type] }).toEqual({ type, id: entities.find((e) => e.type === type)!.id });
    }
  });
});
