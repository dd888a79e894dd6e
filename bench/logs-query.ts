import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** The GraphQL schema of GetProjectLogs as the baselines and peers serve it: our schema's types for the fields the query reads. */
export const LOGS_SDL = `
  type Log { logId: ID! materials: [String!]! timeSpentMinutes: Int }
  type Query { logs(projectId: ID!, first: Int): [Log!]! }
`;

/** The query every database-bound line sends: the seed's GetProjectLogs with a page of 50. */
export const GET_PROJECT_LOGS =
  'query GetProjectLogs($projectId: ID!) { logs(projectId: $projectId, first: 50) { logId materials timeSpentMinutes } }';

/**
 * GetProjectLogs as PostGraphile 5 (Amber preset) serves it from the derived `logs` table: the
 * project's logs in its primary key's order (tenant, project, log id: the order of our sort key),
 * the first 50, the same three fields. Row-level security keeps them to the request's tenant.
 */
export const POSTGRAPHILE_LOGS =
  'query GetProjectLogs($projectId: String!) { allLogs(condition: { projectId: $projectId }, orderBy: PRIMARY_KEY_ASC, first: 50) { nodes { logId materials timeSpentMinutes } } }';

/**
 * The one DynamoDB Query our server makes for GetProjectLogs(first: 50) (same key condition,
 * filter, limit and consistency), for the baselines and peers: a project's logs, oldest first.
 */
export function logsQuery(doc: DynamoDBDocumentClient, table: string, tenant: string, projectId: string) {
  return doc.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :a)',
      FilterExpression: 'attribute_not_exists(#exp) OR #exp > :now',
      ExpressionAttributeNames: { '#pk': 'PK', '#sk': 'SK', '#exp': 'expiresAt' },
      ExpressionAttributeValues: { ':pk': `TENANT#${tenant}`, ':a': `PROJECT#${projectId}#LOG#`, ':now': Math.floor(Date.now() / 1000) },
      Limit: 51,
      ConsistentRead: true,
      ScanIndexForward: true,
    }),
  );
}
