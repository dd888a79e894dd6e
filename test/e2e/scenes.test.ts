import { startTestServer, type TestServer } from '../support/server';

/** A project child declared as data only (entities.ts) and listed in features.ts: its whole standard API. */
describe('scenes', () => {
  let server: TestServer;
  let token: string;
  let projectId: string;
  const gql = async (query: string, variables: Record<string, unknown> = {}) => (await server.raw({ query, variables }, token)).body;
  const FIELDS = 'id sceneId projectId sequence prompt referenceImages needsLipSync retryCount status version';

  beforeAll(async () => {
    server = await startTestServer();
    token = await server.token('scene-tenant');
    projectId = (await gql('mutation { createProject(input: { title: "Video" }) { projectId } }')).data.createProject.projectId;
  });

  const create = (input: Record<string, unknown>) =>
    gql(`mutation($p: ID!, $input: CreateSceneInput!) { createScene(projectId: $p, input: $input) { ${FIELDS} } }`, {
      p: projectId,
      input,
    });

  it('creates scenes with the declared defaults, lists them in order and reads one back, also by its Node id', async () => {
    const first = (await create({ sequence: 1, prompt: 'Opening shot' })).data.createScene;
    expect(first).toMatchObject({ sequence: 1, referenceImages: [], needsLipSync: false, retryCount: 0, status: 'PENDING', version: 1 });
    await create({ sequence: 2, prompt: 'Chorus', referenceImages: ['tenants/scene-tenant/ref.png'], needsLipSync: true });
    const list = (
      await gql('query($p: ID!) { scenes(projectId: $p) { nodes { sequence } } project(projectId: $p) { scenes { sequence } } }', {
        p: projectId,
      })
    ).data;
    expect(list.scenes.nodes.map((s: { sequence: number }) => s.sequence)).toEqual([1, 2]);
    expect(list.project.scenes).toHaveLength(2);
    const one = await gql(`query($p: ID!, $s: ID!) { scene(projectId: $p, sceneId: $s) { prompt } }`, { p: projectId, s: first.sceneId });
    expect(one.data.scene.prompt).toBe('Opening shot');
    expect((await gql('query($id: ID!) { node(id: $id) { ... on Scene { sceneId } } }', { id: first.id })).data.node.sceneId).toBe(
      first.sceneId,
    );
  });

  it('refuses bad input with BAD_USER_INPUT and writes nothing', async () => {
    const outside = await create({ sequence: 3, prompt: 'x', audioClip: 'tenants/another-tenant/a.mp3' });
    expect(outside.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'audioClip' });
    const empty = await create({ sequence: 3, prompt: '   ' });
    expect(empty.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'prompt' });
    const count = (await gql('query($p: ID!) { scenes(projectId: $p) { nodes { sceneId } } }', { p: projectId })).data.scenes.nodes.length;
    expect(count).toBe(2);
  });

  it('moves a scene along its machine, lists it by status, and refuses a move the machine does not allow', async () => {
    const { sceneId } = (await create({ sequence: 4, prompt: 'Bridge' })).data.createScene;
    const move = (status: string) =>
      gql(`mutation($p: ID!, $s: ID!) { setSceneStatus(projectId: $p, sceneId: $s, status: ${status}) { status version } }`, {
        p: projectId,
        s: sceneId,
      });
    const invalid = await move('COMPLETED');
    expect(invalid.errors[0].extensions).toMatchObject({
      code: 'INVALID_TRANSITION',
      from: 'pending',
      to: 'completed',
      allowed: ['processing', 'failed'],
    });
    expect((await move('PROCESSING')).data.setSceneStatus).toEqual({ status: 'PROCESSING', version: 2 });
    const byStatus = async (status: string) =>
      (await gql(`{ scenesByStatus(status: ${status}) { nodes { sceneId } } }`)).data.scenesByStatus.nodes.map(
        (s: { sceneId: string }) => s.sceneId,
      );
    expect(await byStatus('PROCESSING')).toEqual([sceneId]);
    expect(await byStatus('PENDING')).not.toContain(sceneId);
    await move('COMPLETED');
    expect(await byStatus('COMPLETED')).toEqual([sceneId]);
    expect(await byStatus('PROCESSING')).toEqual([]);
  });

  it('updates with optimistic locking and deletes', async () => {
    const { sceneId } = (await create({ sequence: 5, prompt: 'Outro' })).data.createScene;
    const update = (expectedVersion: number, input: Record<string, unknown>) =>
      gql(
        `mutation($p: ID!, $s: ID!, $v: Int!, $input: UpdateSceneInput!) { updateScene(projectId: $p, sceneId: $s, expectedVersion: $v, input: $input) { prompt negativePrompt version } }`,
        {
          p: projectId,
          s: sceneId,
          v: expectedVersion,
          input,
        },
      );
    expect((await update(1, { prompt: 'Outro, slower', negativePrompt: 'text' })).data.updateScene).toEqual({
      prompt: 'Outro, slower',
      negativePrompt: 'text',
      version: 2,
    });
    expect((await update(1, { prompt: 'stale' })).errors[0].extensions).toMatchObject({ code: 'CONFLICT' });
    expect((await update(2, { prompt: null })).errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'prompt' });
    const deleted = await gql('mutation($p: ID!, $s: ID!) { deleteScene(projectId: $p, sceneId: $s) { sceneId } }', {
      p: projectId,
      s: sceneId,
    });
    expect(deleted.data.deleteScene.sceneId).toBe(sceneId);
    expect(
      (await gql('query($p: ID!, $s: ID!) { scene(projectId: $p, sceneId: $s) { sceneId } }', { p: projectId, s: sceneId })).data.scene,
    ).toBeNull();
  });
});
