import { randomUUID } from 'node:crypto';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createTable, testClient, testEndpoint, testRegion } from '../support/dynamo';
import { fixture } from '../support/fixtures';

/**
 * The run's one DynamoDB Local keeps a database for each access key and region (globalSetup starts
 * it without `-sharedDb`), and each jest worker has a region of its own: that is what keeps two files
 * that run at the same time out of each other's database. A table made in this worker's database is
 * listed there, and not from another region or with another access key.
 */
describe("the run's DynamoDB Local", () => {
  it("keeps this worker's tables in a database of its own region and access key", async () => {
    const tableName = `t_${randomUUID().slice(0, 8)}`;
    await createTable(tableName);
    const listed = async (client: DynamoDBClient) => {
      const names: string[] = [];
      let start: string | undefined;
      do {
        const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
        names.push(...(page.TableNames ?? []));
        start = page.LastEvaluatedTableName;
      } while (start);
      return names.includes(tableName);
    };
    const other = (region: string, accessKeyId: string) =>
      fixture(
        'DynamoDB client',
        new DynamoDBClient({ endpoint: testEndpoint(), region, credentials: { accessKeyId, secretAccessKey: 'x' } }),
        (c) => c.destroy(),
      );
    const otherRegion = testRegion() === 'sa-east-1' ? 'ca-central-1' : 'sa-east-1';
    expect({
      here: await listed(fixture('DynamoDB client', testClient(), (c) => c.destroy())),
      otherRegion: await listed(other(otherRegion, 'local')),
      otherKey: await listed(other(testRegion(), 'someoneelse')),
    }).toEqual({ here: true, otherRegion: false, otherKey: false });
  });
});
