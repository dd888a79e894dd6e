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
