import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { keySchemas } from '../../src/infra/dynamo/table';
import { boundPort } from '../../src/infra/free-port';
import { registerFixture } from './fixtures';

/*
 * DynamoDB's per-partition limits, emulated in front of DynamoDB Local (which has none). Real
 * DynamoDB lets every partition key value of a table, and of each global secondary index, take at
 * most 1,000 write units and 3,000 read units a second, whatever the table's capacity; a write
 * whose index partition is over its limit is throttled on the base table too. This proxy parses
 * each call of DynamoDB's JSON protocol, charges its units to the partition keys it touches, keeps
 * a token bucket per key and answers a call over the limit as DynamoDB does.
 *
 * What is charged (DynamoDB's rules, estimated where the request does not say):
 *   - a write: 1 unit per KB of the item (the larger of before and after), 2 inside a
 *     transaction, to the item's partition key and to the partition key of every index the item
 *     carries before or after the write. Before-images are the images of earlier writes through
 *     this proxy (every item of a test's table is written through it); an update's after-image is
 *     the before-image with the values it sets.
 *   - a read: 1 unit per 4 KB read when strongly consistent, half when eventually consistent, 2
 *     in a transaction; a Query is charged for the bytes of its answer (a lower bound of what it
 *     scanned, since a filter drops items after they are charged).
 * A write is refused when any of its keys has fewer tokens than it would take (or, for a write
 * bigger than a key's whole allowance, than the allowance); a read when any of its keys is in debt (a read's cost is known from its answer, so reads are charged afterwards, as
 * DynamoDB lets a partition run briefly into debt).
 */

/** The per-key limits; the real ones by default. */
export interface PartitionLimits {
  /** Write units a second per partition key (DynamoDB: 1,000). */
  wcuPerSecond: number;
  /** Read units a second per partition key (DynamoDB: 3,000). */
  rcuPerSecond: number;
  /** Seconds of unused units a key may save up (the burst allowance). */
  burstSeconds: number;
  /**
   * How a throttled TransactWriteItems or TransactGetItems is answered: 'cancellation' as DynamoDB
   * does (TransactionCanceledException with a ThrottlingError reason), 'throughput' as a
   * ProvisionedThroughputExceededException (which the SDK classifies as throttling and retries).
   */
  transactionAnswer: 'cancellation' | 'throughput';
}

export const REAL_LIMITS: PartitionLimits = { wcuPerSecond: 1000, rcuPerSecond: 3000, burstSeconds: 1, transactionAnswer: 'cancellation' };

/** What one partition key was charged and refused. */
export interface KeyCounts {
  /** `PK`, or the index's key attribute (`GSI1PK`, `OUTBOXPK` …), then `=` and the value. */
  key: string;
  wcu: number;
  rcu: number;
  /** Calls that touched the key (throttled ones included). */
  calls: number;
  /** Calls refused because this key was over its limit. */
  throttled: number;
}

export interface PartitionProxy {
  url: string;
  limits: PartitionLimits;
  /** Every key's counts so far. */
  counts(): KeyCounts[];
  /** The `n` keys charged the most units (write units first, then read units). */
  hottest(n: number, by?: 'wcu' | 'rcu' | 'throttled'): KeyCounts[];
  /** Calls refused, by operation. */
  readonly throttledCalls: Map<string, number>;
  /** Queries sent, by the partition key they read (as KeyCounts.key). */
  readonly queries: Map<string, number>;
  /** Clears the counts (not the buckets). */
  reset(): void;
  stop(): Promise<void>;
}

type Item = Record<string, AttributeValue>;
type Charge = Map<string, number>;
interface Image {
  bytes: number;
  /** The partition keys (as KeyCounts.key) of the indexes the item is in. */
  indexKeys: string[];
}

const INDEX_PKS = Object.entries(keySchemas)
  .filter(([name]) => name !== 'TABLE')
  .map(([, schema]) => schema.pk);
const PREFIX = 'com.amazonaws.dynamodb.v20120810#';

/** DynamoDB's size of an attribute value in bytes (its documented rules, to within a byte or two). */
function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return Math.ceil(value.N.replace(/^-|\.|^0+/g, '').length / 2) + 1;
  if (value.B !== undefined) return Buffer.from(value.B as unknown as string, 'base64').length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((n, s) => n + Buffer.byteLength(s), 0);
  if (value.NS) return value.NS.reduce((n, s) => n + Math.ceil(s.length / 2) + 1, 0);
  if (value.L) return 3 + value.L.reduce((n, v) => n + 1 + valueBytes(v), 0);
  if (value.M) return 3 + itemBytes(value.M);
  return 0;
}

/** DynamoDB's size of an item in bytes: its attributes' names and values (what its write units are charged by, per KB). */
export function itemBytes(item: Item): number {
  let sum = 0;
  for (const [name, value] of Object.entries(item)) sum += Buffer.byteLength(name) + valueBytes(value);
  return sum;
}

const imageKey = (table: string, key: Item) => `${table}\u0000${key.PK?.S}\u0000${key.SK?.S}`;
const pkOf = (key: Item | undefined) => `PK=${key?.PK?.S ?? '?'}`;
const indexKeysOf = (item: Item) => INDEX_PKS.filter((name) => item[name]?.S !== undefined).map((name) => `${name}=${item[name].S}`);
const add = (charge: Charge, key: string, units: number) => charge.set(key, (charge.get(key) ?? 0) + units);

/** The attribute values an UpdateExpression's SET clauses assign, by attribute name (the rest of the expression is ignored). */
function setValues(update: {
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}): Item {
  const out: Item = {};
  const set = /\bSET\b(.*?)(\b(REMOVE|ADD|DELETE)\b|$)/is.exec(update.UpdateExpression ?? '')?.[1] ?? '';
  for (const [, name, placeholder] of set.matchAll(/([#\w.[\]]+)\s*=\s*(:\w+)/g)) {
    const attribute = update.ExpressionAttributeNames?.[name] ?? name;
    const value = update.ExpressionAttributeValues?.[placeholder];
    if (value) out[attribute] = value;
  }
  return out;
}

/** The attributes an UpdateExpression's REMOVE clause names. */
function removed(update: { UpdateExpression?: string; ExpressionAttributeNames?: Record<string, string> }): string[] {
  const clause = /\bREMOVE\b(.*?)(\b(SET|ADD|DELETE)\b|$)/is.exec(update.UpdateExpression ?? '')?.[1] ?? '';
  return clause
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => update.ExpressionAttributeNames?.[name] ?? name);
}

/**
 * Starts the emulator on 127.0.0.1 in front of the DynamoDB at `target`, with `limits` (the real
 * ones where not given; a test scales them down). The fixture registry stops it after the file.
 */
export async function startPartitionProxy(target: string, limits: Partial<PartitionLimits> = {}): Promise<PartitionProxy> {
  const config: PartitionLimits = { ...REAL_LIMITS, ...limits };
  const { hostname, port } = new URL(target);
  const images = new Map<string, Image>();
  const buckets = new Map<string, { wcu: number; rcu: number; at: number }>();
  const stats = new Map<string, KeyCounts>();
  const throttledCalls = new Map<string, number>();
  const queries = new Map<string, number>();

  const countsOf = (key: string) => {
    let counts = stats.get(key);
    if (!counts) stats.set(key, (counts = { key, wcu: 0, rcu: 0, calls: 0, throttled: 0 }));
    return counts;
  };
  /** The key's bucket, refilled to now. */
  const bucketOf = (key: string) => {
    const now = performance.now();
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { wcu: config.wcuPerSecond * config.burstSeconds, rcu: config.rcuPerSecond * config.burstSeconds, at: now };
      buckets.set(key, bucket);
    }
    const seconds = (now - bucket.at) / 1000;
    bucket.wcu = Math.min(config.wcuPerSecond * config.burstSeconds, bucket.wcu + seconds * config.wcuPerSecond);
    bucket.rcu = Math.min(config.rcuPerSecond * config.burstSeconds, bucket.rcu + seconds * config.rcuPerSecond);
    bucket.at = now;
    return bucket;
  };

  /** The image an item will have after a write, and its cost's charge on every key it touches. */
  const chargeWrite = (
    table: string,
    key: Item,
    after: Item | undefined,
    factor: number,
    charge: Charge,
    pending: Map<string, Image | undefined>,
  ) => {
    const id = imageKey(table, key);
    const before = images.get(id);
    const afterImage: Image | undefined = after ? { bytes: itemBytes(after), indexKeys: indexKeysOf(after) } : undefined;
    const units = factor * Math.max(1, Math.ceil(Math.max(before?.bytes ?? 0, afterImage?.bytes ?? 0) / 1024));
    add(charge, pkOf(key), units);
    for (const indexKey of new Set([...(before?.indexKeys ?? []), ...(afterImage?.indexKeys ?? [])])) add(charge, indexKey, units);
    pending.set(id, afterImage);
  };
  /** An update's after-image: its before-image (when this proxy saw one) with the values it sets and without those it removes. */
  const chargeUpdate = (update: Record<string, any>, factor: number, charge: Charge, pending: Map<string, Image | undefined>) => {
    const id = imageKey(update.TableName, update.Key);
    const before = images.get(id);
    const sets = setValues(update);
    const gone = new Set(removed(update));
    const indexKeys = [
      ...(before?.indexKeys ?? [])
        .filter((k) => !gone.has(k.slice(0, k.indexOf('='))))
        .filter((k) => !(k.slice(0, k.indexOf('=')) in sets)),
      ...indexKeysOf(sets),
    ];
    const bytes = Math.max(before?.bytes ?? 0, itemBytes(update.Key) + itemBytes(sets));
    const units = factor * Math.max(1, Math.ceil(bytes / 1024));
    add(charge, pkOf(update.Key), units);
    for (const indexKey of new Set([...(before?.indexKeys ?? []), ...indexKeys])) add(charge, indexKey, units);
    pending.set(id, { bytes, indexKeys });
  };

  /** What a write call costs on each key, and the images it leaves once it succeeds. */
  const writeCharge = (operation: string, body: Record<string, any>) => {
    const charge: Charge = new Map();
    const pending = new Map<string, Image | undefined>();
    if (operation === 'PutItem') chargeWrite(body.TableName, body.Item, body.Item, 1, charge, pending);
    else if (operation === 'DeleteItem') chargeWrite(body.TableName, body.Key, undefined, 1, charge, pending);
    else if (operation === 'UpdateItem') chargeUpdate(body, 1, charge, pending);
    else if (operation === 'BatchWriteItem') {
      for (const [table, requests] of Object.entries<any[]>(body.RequestItems ?? {}))
        for (const r of requests)
          if (r.PutRequest) chargeWrite(table, r.PutRequest.Item, r.PutRequest.Item, 1, charge, pending);
          else chargeWrite(table, r.DeleteRequest.Key, undefined, 1, charge, pending);
    } else if (operation === 'TransactWriteItems') {
      for (const entry of body.TransactItems ?? []) {
        if (entry.Put) chargeWrite(entry.Put.TableName, entry.Put.Item, entry.Put.Item, 2, charge, pending);
        else if (entry.Delete) chargeWrite(entry.Delete.TableName, entry.Delete.Key, undefined, 2, charge, pending);
        else if (entry.Update) chargeUpdate(entry.Update, 2, charge, pending);
        else if (entry.ConditionCheck) add(charge, pkOf(entry.ConditionCheck.Key), 2);
      }
    }
    return { charge, pending };
  };

  /** The partition keys a read touches (its cost comes from the answer). */
  const readKeys = (operation: string, body: Record<string, any>): string[] => {
    if (operation === 'GetItem') return [pkOf(body.Key)];
    if (operation === 'BatchGetItem')
      return Object.values<any>(body.RequestItems ?? {}).flatMap((r) => (r.Keys ?? []).map((k: Item) => pkOf(k)));
    if (operation === 'TransactGetItems') return (body.TransactItems ?? []).map((t: any) => pkOf(t.Get?.Key));
    if (operation === 'Query') {
      const pk = keySchemas[(body.IndexName ?? 'TABLE') as keyof typeof keySchemas]?.pk ?? 'PK';
      for (const [, name, placeholder] of String(body.KeyConditionExpression ?? '').matchAll(/([#\w]+)\s*=\s*(:\w+)/g))
        if ((body.ExpressionAttributeNames?.[name] ?? name) === pk) return [`${pk}=${body.ExpressionAttributeValues?.[placeholder]?.S}`];
    }
    return [];
  };

  /** A read's units on each key, from its answer. */
  const readCharge = (operation: string, body: Record<string, any>, answer: Record<string, any>, answerBytes: number): Charge => {
    const charge: Charge = new Map();
    const units = (bytes: number, consistent: boolean, factor = 1) =>
      factor * Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
    if (operation === 'GetItem') add(charge, pkOf(body.Key), units(answer.Item ? itemBytes(answer.Item) : 0, body.ConsistentRead === true));
    else if (operation === 'Query') {
      const [key] = readKeys(operation, body);
      if (key) add(charge, key, units(answerBytes, body.ConsistentRead === true));
    } else if (operation === 'BatchGetItem') {
      for (const [table, request] of Object.entries<any>(body.RequestItems ?? {})) {
        const found = new Map<string, Item>((answer.Responses?.[table] ?? []).map((item: Item) => [imageKey(table, item), item]));
        for (const key of request.Keys ?? []) {
          const item = found.get(imageKey(table, key));
          add(charge, pkOf(key), units(item ? itemBytes(item) : 0, request.ConsistentRead === true));
        }
      }
    } else if (operation === 'TransactGetItems')
      (body.TransactItems ?? []).forEach((t: any, i: number) => {
        const item = answer.Responses?.[i]?.Item;
        add(charge, pkOf(t.Get?.Key), units(item ? itemBytes(item) : 0, true, 2));
      });
    return charge;
  };

  const refuse = (res: ServerResponse, operation: string, keys: string[], body: Record<string, any>) => {
    throttledCalls.set(operation, (throttledCalls.get(operation) ?? 0) + 1);
    for (const key of keys) countsOf(key).throttled++;
    const transactional = operation === 'TransactWriteItems' || operation === 'TransactGetItems';
    const answer =
      transactional && config.transactionAnswer === 'cancellation'
        ? {
            __type: `${PREFIX}TransactionCanceledException`,
            message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ThrottlingError]',
            CancellationReasons: (body.TransactItems ?? []).map(() => ({
              Code: 'ThrottlingError',
              Message: 'Throughput exceeds the current capacity of your table or index.',
            })),
          }
        : {
            __type: `${PREFIX}ProvisionedThroughputExceededException`,
            message:
              'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
          };
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(JSON.stringify(answer));
  };

  const forward = (
    req: IncomingMessage,
    raw: Buffer,
    done: (status: number, headers: IncomingHttpHeaders, body: Buffer) => void,
    fail: () => void,
  ) => {
    const upstream = request({ host: hostname, port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const parts: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => parts.push(chunk));
      answer.on('end', () => done(answer.statusCode ?? 502, answer.headers, Buffer.concat(parts)));
    });
    upstream.on('error', fail);
    upstream.end(raw);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const operation =
        String(req.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '';
      let body: Record<string, any> = {};
      try {
        body = raw.length ? JSON.parse(raw.toString('utf8')) : {};
      } catch {
        // Not a JSON call: passed through uncharged (DynamoDB Local answers it).
      }
      const pass = (status: number, headers: IncomingHttpHeaders, answer: Buffer) => res.writeHead(status, headers).end(answer);
      const fail = () => res.destroy();
      const { charge, pending } = writeCharge(operation, body);
      if (charge.size > 0) {
        for (const key of charge.keys()) countsOf(key).calls++;
        // A call bigger than a key's whole allowance (at a scaled-down limit, a 50-item creation)
        // is let through when the key's bucket is full, and leaves it in debt.
        const full = config.wcuPerSecond * config.burstSeconds;
        const over = [...charge].filter(([key, units]) => bucketOf(key).wcu < Math.min(units, full)).map(([key]) => key);
        if (over.length > 0) return refuse(res, operation, over, body);
        for (const [key, units] of charge) {
          bucketOf(key).wcu -= units;
          countsOf(key).wcu += units;
        }
        return forward(
          req,
          raw,
          (status, headers, answer) => {
            // Only a write that happened changes the images (a failed condition writes nothing).
            if (status === 200) for (const [id, image] of pending) image ? images.set(id, image) : images.delete(id);
            pass(status, headers, answer);
          },
          fail,
        );
      }
      const keys = readKeys(operation, body);
      if (keys.length === 0) return forward(req, raw, pass, fail);
      for (const key of new Set(keys)) countsOf(key).calls++;
      if (operation === 'Query') for (const key of keys) queries.set(key, (queries.get(key) ?? 0) + 1);
      const over = [...new Set(keys)].filter((key) => bucketOf(key).rcu <= 0);
      if (over.length > 0) return refuse(res, operation, over, body);
      forward(
        req,
        raw,
        (status, headers, answer) => {
          if (status === 200) {
            for (const [key, units] of readCharge(operation, body, JSON.parse(answer.toString('utf8')), answer.length)) {
              bucketOf(key).rcu -= units;
              countsOf(key).rcu += units;
            }
          }
          pass(status, headers, answer);
        },
        fail,
      );
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${boundPort(server)}`;
  const stop = registerFixture(
    `partition proxy ${url}`,
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url,
    limits: config,
    counts: () => [...stats.values()].map((c) => ({ ...c })),
    hottest(n, by = 'wcu') {
      const score = (c: KeyCounts) => (by === 'wcu' ? c.wcu * 1e6 + c.rcu : by === 'rcu' ? c.rcu * 1e6 + c.wcu : c.throttled);
      return [...stats.values()]
        .sort((a, b) => score(b) - score(a))
        .slice(0, n)
        .map((c) => ({ ...c }));
    },
    throttledCalls,
    queries,
    reset() {
      stats.clear();
      throttledCalls.clear();
      queries.clear();
    },
    stop,
  };
}
