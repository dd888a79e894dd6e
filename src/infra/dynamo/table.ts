import type { CreateTableCommandInput, StreamSpecification } from '@aws-sdk/client-dynamodb';

/**
 * The one table definition. It creates the local table, is printed as the deployment template
 * (`npm run table:template`), and tells the store which attributes key each index.
 */

/** The key of an item in the table. */
export interface Key {
  PK: string;
  SK: string;
}

export type IndexName = 'GSI1' | 'GSI2' | 'GSI3' | 'GSI4' | 'OUTBOX';

export interface KeySchema {
  pk: string;
  sk: string;
}

/** The key attributes of the base table and of each index (all indexes project ALL attributes). */
export const keySchemas: Record<'TABLE' | IndexName, KeySchema> = {
  TABLE: { pk: 'PK', sk: 'SK' },
  /** By status: `TENANT#t#<ENTITY>_STATUS#<status>` / created or updated time. */
  GSI1: { pk: 'GSI1PK', sk: 'GSI1SK' },
  /**
   * By type: `TENANT#t#TYPE#<entity>` / normalized title or text + id, for listing and prefix search;
   * also a parent's items of one type (`TENANT#t#TYPE#INSPIRATION#PROJECT#p` / creation time).
   */
  GSI2: { pk: 'GSI2PK', sk: 'GSI2SK' },
  /**
   * Operations across tenants: `<ENTITY>_STATUS#<status>#<shard>` / timestamp (operators only); and,
   * under the tenant's prefix, browsing by kind and time: `TENANT#t#ASSET_TYPE#<type>` / creation time,
   * and a project's activity events by id: `TENANT#t#PROJECT#p#EVENT_IDS` / event id.
   */
  GSI3: { pk: 'GSI3PK', sk: 'GSI3SK' },
  /** By owner: `TENANT#t#USER#u#<ENTITY>` / creation time, e.g. a user's job history. */
  GSI4: { pk: 'GSI4PK', sk: 'GSI4SK' },
  /** Events not yet published: `OUTBOX#<shard>` / event time; publishing removes the attributes. */
  OUTBOX: { pk: 'OUTBOXPK', sk: 'OUTBOXSK' },
};

/** Every attribute that keys the table or an index: what a published event leaves out. */
export const KEY_ATTRIBUTES: ReadonlySet<string> = new Set(Object.values(keySchemas).flatMap(({ pk, sk }) => [pk, sk]));

/** The TTL attribute (epoch seconds) on events, idempotency records and finished jobs. */
export const TTL_ATTRIBUTE = 'expiresAt';

export const indexNames: IndexName[] = ['GSI1', 'GSI2', 'GSI3', 'GSI4', 'OUTBOX'];

/**
 * The table's change stream: every committed item as it is after the write (NEW_IMAGE), which the
 * deploy template's EventBridge Pipe reads to send event items downstream (downstream.ts).
 */
export const STREAM_SPECIFICATION: StreamSpecification = { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' };

/**
 * The CreateTable request for the table named `tableName`: on-demand billing, every index
 * ALL-projected, and the change stream on unless `stream` is false (TABLE_STREAM=off).
 */
export function tableDefinition(tableName: string, options: { stream?: boolean } = {}): CreateTableCommandInput {
  const attributes = Object.values(keySchemas).flatMap(({ pk, sk }) => [pk, sk]);
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    ...(options.stream === false ? {} : { StreamSpecification: { ...STREAM_SPECIFICATION } }),
    AttributeDefinitions: attributes.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: keySchemas.TABLE.pk, KeyType: 'HASH' },
      { AttributeName: keySchemas.TABLE.sk, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: indexNames.map((IndexName) => ({
      IndexName,
      KeySchema: [
        { AttributeName: keySchemas[IndexName].pk, KeyType: 'HASH' },
        { AttributeName: keySchemas[IndexName].sk, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}
