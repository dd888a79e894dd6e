import { Client } from 'pg';
import { fixture } from '../support/fixtures';
import { startPostgresForServer } from '../support/postgres';

/**
 * The run's one PostgreSQL (test/support/postgres.ts, started by globalSetup's broker when a server
 * first asks): every server on PostgreSQL gets a database of its own in that one cluster, which its
 * roles can use, and which is dropped once the test that asked for it is done.
 */
describe("the run's PostgreSQL", () => {
  let first: { DATABASE_URL: string; DATABASE_OWNER_URL: string } | undefined;
  const connectTo = async (url: string) => {
    const client = new Client({ connectionString: url });
    await client.connect();
    return fixture('postgres client', client, (c) => c.end());
  };

  it('gives each server a database of its own in one cluster, which its roles can use', async () => {
    const [a, b] = await Promise.all([startPostgresForServer(), startPostgresForServer()]);
    first = a;
    const [urlA, urlB] = [new URL(a.DATABASE_URL), new URL(b.DATABASE_URL)];
    expect(urlA.port).toBe(urlB.port);
    expect(urlA.pathname).not.toBe(urlB.pathname);
    // The owner may create in its own database (the server applies its schema there); the app role may connect.
    const owner = await connectTo(a.DATABASE_OWNER_URL);
    await owner.query('CREATE SCHEMA proof');
    const app = await connectTo(a.DATABASE_URL);
    expect((await app.query('SELECT current_database() AS name')).rows[0].name).toBe(urlA.pathname.slice(1));
  });

  it('drops a database once the test that asked for it is done', async () => {
    expect(first).toBeDefined();
    await expect(connectTo(first!.DATABASE_URL)).rejects.toMatchObject({ code: '3D000' });
  });
});
