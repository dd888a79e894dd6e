import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { CreateLogDocument, CreateProjectDocument } from '../../src/client/gql/graphql';
import { entities } from '../../src/common/entities';
import { streams } from '../../src/common/streams';
import { REPLAY_PAGE } from '../../src/events/replay';
import { keySchemas } from '../../src/infra/dynamo/table';
import { dataOf, startTestServer, type TestServer } from '../support/server';
import { eventually, subscribe, wsClient } from '../support/ws';

/*
 * Resuming a project's activity with the deprecated `afterEventId` on a stream of several replay
 * pages: the server finds the event's position by one keyed read of the caller's tenant and
 * project (the byEventId index), never by reading the stream, and replays exactly what follows it.
 * Real graphql-ws clients, the real server, DynamoDB Local; the items read are the server's own
 * counter (app.calls), so a lookup that read the whole stream would fail the bounds below.
 */

const ACTIVITY = 'subscription($id: ID!, $e: ID) { projectActivity(projectId: $id, afterEventId: $e) { position action eventId } }';

interface Message {
  position: number;
  action: string;
  eventId: string;
}

interface Stored {
  position: number;
  eventId: string;
  action: string;
}

/** More than three replay pages, so neither the unknown-id path (at most two pages) nor a resume can read it all unnoticed. */
const EVENTS = 3 * REPLAY_PAGE + 20;

describe('resuming project activity after an event id', () => {
  let server: TestServer;
  let editor: string;
  let intruder: string;
  let projectId: string;
  let otherProjectId: string;
  let intruderProjectId: string;

  async function logs(token: string, project: string, n: number): Promise<void> {
    // Five writers at a time: they serialize on the stream's head, each retrying until it commits.
    for (let i = 0; i < n; i += 5) {
      await Promise.all(
        Array.from({ length: Math.min(5, n - i) }, (_, j) =>
          server.request(CreateLogDocument, { projectId: project, input: { rawText: `entry ${i + j}` } }, token).then(dataOf),
        ),
      );
    }
  }

  /** The project's stored activity, in position order, read straight from the table. */
  async function stored(tenantId: string, project: string): Promise<Stored[]> {
    const items = await server.app.store.queryAll(streams.projectActivity(tenantId, project).after(0), 10_000);
    return items
      .filter((item) => entities.ProjectEvent.is(item))
      .map(({ position, eventId, action }) => ({ position: Number(position), eventId, action: String(action) }));
  }

  /** The items every Query of the server read since the last reset (see CallCounter). */
  const queryItems = () => server.app.calls.itemsByCommand.get('QueryCommand') ?? 0;

  beforeAll(async () => {
    // No outbox sweeps: the test counts the DynamoDB reads the server makes.
    server = await startTestServer({ env: { OUTBOX_SWEEP_MS: '3600000' } });
    editor = await server.token('resume-a');
    intruder = await server.token('resume-b');
    const project = async (token: string, title: string) =>
      dataOf(await server.request(CreateProjectDocument, { input: { title } }, token)).createProject.projectId;
    projectId = await project(editor, 'Long history');
    otherProjectId = await project(editor, 'Another');
    intruderProjectId = await project(intruder, 'B');
    await logs(editor, projectId, EVENTS - 1);
    await logs(editor, otherProjectId, 2);
    await logs(intruder, intruderProjectId, 2);
  }, 300_000);

  afterEach(async () => {
    // Every subscription of a test is gone with its client: no listener is left behind.
    await eventually(
      () => server.app.counts(),
      (c) => c.graphql_ws_connections === 0 && c.event_bus_listeners === 0,
      20_000,
    );
  });

  /** Subscribes as `token` after `eventId`, waits for the acknowledgement and `n` more messages, and ends the subscription. */
  async function resume(token: string, project: string, eventId: string, n: number, client = wsClient(server.url, token)) {
    const sub = subscribe<Message>(client, ACTIVITY, { id: project, e: eventId });
    const ack = await Promise.race([sub.ack, sub.done.then(() => undefined)]);
    if (n > 0) await sub.waitFor(n);
    await client.dispose();
    return { ack, received: sub.received.slice(0, n), errors: sub.errors };
  }

  it('starts right after the event, with no gap and no duplicate, reading the event by its id and then only what follows it', async () => {
    const events = await stored('resume-a', projectId);
    expect(events.length).toBe(EVENTS);
    expect(events.map((e) => e.position)).toEqual(events.map((_, i) => i + 1));
    // Past the first page, with more than one page after it.
    const from = events[REPLAY_PAGE + 10];
    const rest = events.filter((e) => e.position > from.position);
    expect(rest.length).toBeGreaterThan(REPLAY_PAGE);

    await server.resetCalls();
    const { ack, received, errors } = await resume(editor, projectId, from.eventId, rest.length);
    const items = queryItems();
    console.log(
      `resume after position ${from.position} of ${events.length}: DynamoDB calls ${JSON.stringify(Object.fromEntries(server.app.calls.byCommand))}, items read by queries ${items}`,
    );
    expect(errors).toEqual([]);
    expect(ack).toMatchObject({ action: 'subscription.started', position: from.position });
    expect(received.map((m) => [m.position, m.eventId, m.action])).toEqual(rest.map((e) => [e.position, e.eventId, e.action]));
    // The event itself, found by its id, and the events after it: nothing before it is read (the
    // whole stream would be another events.length).
    expect(items).toBeLessThanOrEqual(rest.length + 1);

    // Near the head: the lookup reads the one event, the replay the two after it.
    const near = events[events.length - 3];
    await server.resetCalls();
    const tail = await resume(editor, projectId, near.eventId, 2);
    expect(tail.ack).toMatchObject({ action: 'subscription.started', position: near.position });
    expect(tail.received.map((m) => m.eventId)).toEqual(events.slice(-2).map((e) => e.eventId));
    expect(queryItems()).toBeLessThanOrEqual(3);
  });

  it('shares the lookup and the replay among clients resuming after the same event at once', async () => {
    const events = await stored('resume-a', projectId);
    const from = events[events.length - 3];
    const CLIENTS = 20;
    // Every socket connected first, so that the subscribes themselves come at once.
    const clients = await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        const client = createClient({
          url: server.url.replace(/^http/, 'ws'),
          webSocketImpl: WebSocket,
          connectionParams: { authorization: `Bearer ${editor}` },
          retryAttempts: 0,
          lazy: false,
        });
        await new Promise((resolve) => client.on('connected', resolve));
        return client;
      }),
    );
    await server.resetCalls();
    const resumed = await Promise.all(clients.map((client) => resume(editor, projectId, from.eventId, 2, client)));
    const queries = server.app.calls.byCommand.get('QueryCommand') ?? 0;
    console.log(
      `${CLIENTS} clients resuming after one event id: DynamoDB calls ${JSON.stringify(Object.fromEntries(server.app.calls.byCommand))}`,
    );
    for (const { ack, received, errors } of resumed) {
      expect(errors).toEqual([]);
      expect(ack).toMatchObject({ action: 'subscription.started', position: from.position });
      expect(received.map((m) => m.eventId)).toEqual(events.slice(-2).map((e) => e.eventId));
    }
    // The lookups alone, unshared, would be one query a client (the replay's pages are shared anyway).
    expect(queries).toBeLessThan(CLIENTS);
  });

  it('reports history lost, not an error, for an id this project does not hold (unknown, another project’s, another tenant’s); BAD_USER_INPUT for no id at all', async () => {
    const mine = await stored('resume-a', projectId);
    const head = mine[mine.length - 1].position;
    const [otherProjects] = await stored('resume-a', otherProjectId);
    const [intruders] = await stored('resume-b', intruderProjectId);
    const unknown = 'evt_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    for (const eventId of [unknown, otherProjects.eventId, intruders.eventId]) {
      await server.resetCalls();
      const lost = await resume(editor, projectId, eventId, 1);
      expect(lost.errors).toEqual([]);
      expect([lost.ack, ...lost.received].map((m) => [m?.action, m?.position])).toEqual([
        ['subscription.started', head],
        ['subscription.history_lost', head],
      ]);
      // Bounded whatever the stream's length: the keyed lookup, the newest page, the replay's first page.
      expect(queryItems()).toBeLessThanOrEqual(2 * REPLAY_PAGE);
    }
    // Tenant B names A's event on its own project: history lost on B's stream, nothing of A's.
    const theirs = await stored('resume-b', intruderProjectId);
    const foreign = await resume(intruder, intruderProjectId, mine[5].eventId, 1);
    expect(foreign.errors).toEqual([]);
    expect([foreign.ack, ...foreign.received].map((m) => [m?.action, m?.position])).toEqual([
      ['subscription.started', theirs[theirs.length - 1].position],
      ['subscription.history_lost', theirs[theirs.length - 1].position],
    ]);
    // An id of no event's shape (a key's `#` above all) is the client's mistake, said before any read.
    const malformed = await resume(editor, projectId, 'evt_#PROJECT', 0);
    expect(malformed.ack).toBeUndefined();
    expect(malformed.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }) })]);
    // And on A's project: the project is not B's (NOT_FOUND), nothing is replayed.
    const refused = await resume(intruder, projectId, mine[5].eventId, 0);
    expect(refused.ack).toBeUndefined();
    expect(refused.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'NOT_FOUND' }) })]);
  });

  it('finds a recent event the index does not hold yet among the newest, and reports an older one as history lost', async () => {
    // An item without its index attributes is what the index shows for an event that committed a
    // moment ago (a GSI is updated asynchronously) and for one stored before the index existed.
    const { pk, sk } = keySchemas[entities.ProjectEvent.indexes.byEventId.index];
    const events = await stored('resume-a', projectId);
    const newest = events[events.length - 1];
    const old = events[10];
    for (const event of [newest, old]) {
      await server.app.store.removeAttributes(entities.ProjectEvent.keyOf('resume-a', { projectId, position: event.position }), [pk, sk]);
    }
    const recent = await resume(editor, projectId, newest.eventId, 0);
    expect(recent.errors).toEqual([]);
    expect(recent.ack).toMatchObject({ action: 'subscription.started', position: newest.position });

    const lost = await resume(editor, projectId, old.eventId, 1);
    expect([lost.ack, ...lost.received].map((m) => m?.action)).toEqual(['subscription.started', 'subscription.history_lost']);
  });
});
