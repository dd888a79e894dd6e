import WebSocket from 'ws';
import { CreateJobDocument, CreateProjectDocument, ReportStepProgressDocument, StartStepDocument } from '../../src/client/gql/graphql';
import { dataOf, Role, startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/ws';

/*
 * Many subscribers at once on one stream, each on its own socket with one jobProgress
 * subscription (as a fleet of browsers, or the fan-out benchmark): a burst of subscribes, then
 * events fanned out to all of them. Real graphql-transport-ws sockets, the real server, DynamoDB
 * Local; the DynamoDB calls are the server's own counter (app.calls).
 */

const QUERY = 'subscription($jobId: ID!) { jobProgress(jobId: $jobId) { seq type job { status progress } } }';

interface Subscriber {
  ws: WebSocket;
  /** Every `next` payload's jobProgress, the acknowledgement first. */
  received: Array<{ seq: number; type: string }>;
  errors: unknown[];
}

/** Opens one socket, initialises it and subscribes once; resolves when the subscription is acknowledged. */
function subscriber(url: string, token: string, jobId: string): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws'), 'graphql-transport-ws');
    const self: Subscriber = { ws, received: [], errors: [] };
    ws.on('error', reject);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.type === 'connection_ack') {
        ws.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: QUERY, variables: { jobId } } }));
      } else if (message.type === 'next') {
        if (message.payload.errors) self.errors.push(...message.payload.errors);
        else self.received.push(message.payload.data.jobProgress);
        if (self.received.length === 1) resolve(self);
      } else if (message.type === 'error') {
        self.errors.push(message.payload);
        reject(new Error(JSON.stringify(message.payload)));
      }
    });
    ws.on('close', (code) => reject(new Error(`closed with ${code}`)));
  });
}

describe('bursts of subscribers on one stream', () => {
  let server: TestServer;
  let editor: string;
  let worker: string;
  let projectId: string;
  const warnings: Error[] = [];
  const onWarning = (warning: Error) => warnings.push(warning);

  beforeAll(async () => {
    server = await startTestServer({ env: { WS_KEEPALIVE_MS: '600000' } });
    editor = await server.token('burst', [Role.EDITOR]);
    worker = await server.token('burst', [Role.WORKER]);
    projectId = dataOf(await server.request(CreateProjectDocument, { input: { title: 'Burst' } }, editor)).createProject.projectId;
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    process.off('warning', onWarning);
    await server.stop();
  });

  async function runningJob(): Promise<string> {
    const { jobId } = dataOf(
      await server.request(CreateJobDocument, { input: { projectId, kind: 'K', steps: ['work'], inputs: { n: Math.random() } } }, editor),
    ).createJob;
    dataOf(await server.request(StartStepDocument, { jobId, stepName: 'work' }, worker));
    return jobId;
  }

  async function closeAll(subscribers: Subscriber[]): Promise<void> {
    for (const s of subscribers) s.ws.close();
    await eventually(
      () => server.app.counts(),
      (c) => c.graphql_ws_connections === 0 && c.event_bus_listeners === 0,
      30_000,
    );
  }

  it('fans events out to many subscribers without any process warning (no listener per call on a shared signal)', async () => {
    const N = 600;
    const jobId = await runningJob();
    const subscribers: Subscriber[] = [];
    // 200 at a time, as the fan-out benchmark opens them.
    for (let i = 0; i < N; i += 200) {
      subscribers.push(...(await Promise.all(Array.from({ length: Math.min(200, N - i) }, () => subscriber(server.url, editor, jobId)))));
    }
    try {
      for (let round = 1; round <= 3; round++) {
        dataOf(await server.request(ReportStepProgressDocument, { jobId, stepName: 'work', progress: round / 10 }, worker));
        await eventually(
          () => subscribers.filter((s) => s.received.length === round + 1).length,
          (n) => n === N,
          30_000,
        );
      }
      // Every subscriber: the acknowledgement at seq 2, then seq 3, 4, 5 in order.
      expect(new Set(subscribers.map((s) => JSON.stringify(s.received.map((e) => e.seq))))).toEqual(new Set(['[2,3,4,5]']));
      expect(subscribers.flatMap((s) => s.errors)).toEqual([]);
      expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    } finally {
      await closeAll(subscribers);
    }
  });
});
