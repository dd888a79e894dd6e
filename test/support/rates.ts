import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { signDevToken } from '../../src/auth/jwt';
import { Role } from '../../src/auth/principal';
import { testEndpoint } from './dynamo';
import { fixture } from './fixtures';
import { gqlAt, startInstance, type Instance } from './instances';
import { startRedis } from './redis';
import { TEST_SECRET, testOperatorToken } from './server';
import { eventually } from './ws';

/*
 * What the per-tenant rate tests share (tenant-rates.test, rate-budgets.test): two server
 * processes that share DynamoDB and Redis, where each tenant's budget is one count; a flood that is
 * open-loop (sent on a clock, not after answers) and bounded in count and time; a client at a
 * normal pace.
 */

const secret = new TextEncoder().encode(TEST_SECRET);
export const token = (tenantId: string, sub: string, roles: Role[] = [Role.EDITOR]) => signDevToken(secret, { sub, tenantId, roles });

export const READ = '{ projects(first: 10) { nodes { projectId title } } }';

export interface Answer {
  status: number;
  retryAfter: string | null;
  code?: string;
  sentAt: number;
  ms: number;
}

/** One GraphQL POST; the status, Retry-After, first error code, and when it was sent and how long it took. */
export async function post(url: string, bearer: string, query: string): Promise<Answer> {
  const sentAt = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    code: body.errors?.[0]?.extensions?.code,
    sentAt,
    ms: performance.now() - sentAt,
  };
}

/**
 * The flood's client, run in a process of its own so that sending and answering hundreds of
 * requests a second does not slow the event loop of the test process, which measures B's latency.
 * It sends `perSecond` requests a second for `seconds`, open-loop (in ticks of 50 ms, whatever the
 * answers), alternating between the URLs and bearers, and prints every answer as JSON.
 */
const FLOOD_CLIENT = `
const [urls, bearers, query, perSecond, seconds] = JSON.parse(process.argv[1]);
const post = async (url, bearer) => {
  const sentAt = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ' + bearer },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(30000),
  });
  const body = await res.json();
  return { status: res.status, retryAfter: res.headers.get('retry-after'), code: body.errors?.[0]?.extensions?.code, sentAt, ms: performance.now() - sentAt, url };
};
const sent = [];
const started = performance.now();
for (let tick = 0; tick < seconds * 20; tick++) {
  const wait = started + tick * 50 - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  for (let i = 0; i < perSecond / 20; i++) {
    const n = sent.length;
    sent.push(post(urls[n % urls.length], bearers[n % bearers.length]));
  }
}
process.stdout.write(JSON.stringify(await Promise.all(sent)));
`;

export interface FloodAnswer extends Answer {
  url: string;
}

/** Runs FLOOD_CLIENT in a child process; resolves with its answers (in the order sent). */
export function flood(urls: string[], bearers: string[], query: string, perSecond: number, seconds: number): Promise<FloodAnswer[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', FLOOD_CLIENT, JSON.stringify([urls, bearers, query, perSecond, seconds])],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the flood client exited with ${code}: ${err}`)),
    );
  });
}

/** A client at a normal pace: one request every `gapMs` (after the previous answer), alternating between `urls`, until `until()`. */
export async function paced(urls: string[], bearer: string, query: string, gapMs: number, until: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (!until()) {
    answers.push(await post(urls[answers.length % urls.length], bearer, query));
    await new Promise((r) => setTimeout(r, gapMs));
  }
  return answers;
}

export interface RatedInstances {
  one: Instance;
  two: Instance;
  urls: string[];
  /**
   * Resolves once the window of `budget` for `key` has ended: its count (rate-limiter-flexible's
   * key, `artissist:rate:<budget>:<key>`) has expired from Redis. This is what Retry-After tells a
   * client to wait for, awaited as a condition instead of slept for.
   */
  windowEnded(budget: string, key: string): Promise<number>;
  /**
   * The Lua scripts Redis has run so far (`INFO commandstats`, EVALSHA and EVAL): every call of the
   * rate budgets is one, and nothing else of the server's runs one.
   */
  scriptCalls(): Promise<number>;
}

/**
 * Starts a Redis and two instances on one new table, and sets each tenant's plan limits before any
 * of them sends anything (so no instance holds an older plan). All of it is registered with the
 * fixture registry.
 */
export async function startRatedInstances(plans: Record<string, Record<string, number>>): Promise<RatedInstances> {
  const redis = await startRedis();
  const counts = fixture('Redis client', new Redis(redis.url), (r) => r.disconnect());
  const env = { DYNAMODB_ENDPOINT: testEndpoint(), TABLE_NAME: `t_${randomUUID().slice(0, 8)}`, REDIS_URL: redis.url };
  // Started at once: each makes the shared table if it is missing, and a second CreateTable is answered as done.
  const [one, two] = await Promise.all([startInstance(env), startInstance(env)]);
  const admin = await testOperatorToken();
  const setPlan = 'mutation($t: ID!, $l: PlanLimitsInput) { setTenantPlan(tenantId: $t, plan: FREE, limits: $l) { plan } }';
  for (const [tenantId, limits] of Object.entries(plans)) {
    const { errors } = await gqlAt(one.url, admin, setPlan, { t: tenantId, l: limits });
    if (errors) throw new Error(`setTenantPlan(${tenantId}) failed: ${JSON.stringify(errors)}`);
  }
  const windowEnded = (budget: string, key: string) =>
    eventually(
      () => counts.exists(`artissist:rate:${budget}:${key}`),
      (n) => n === 0,
      5_000,
    );
  const scriptCalls = async () => {
    const stats = await counts.info('commandstats');
    return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  };
  return { one, two, urls: [one.url, two.url], windowEnded, scriptCalls };
}
