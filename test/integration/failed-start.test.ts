import { createHook } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { startApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { RateBudgets } from '../../src/infra/rate-limits';
import { fixture, restoredAfter, tempDir } from '../support/fixtures';
import { captureLogs } from '../support/logs';
import { spawnPort } from '../support/ports';
import { productionEnv } from '../support/server';

/** A production server's settings (productionEnv) on a table name of its own, which nothing makes. */
const env = (overrides: Record<string, string>) =>
  productionEnv(`t_${randomUUID().slice(0, 8)}`, tempDir('artissist-failed-start-'), overrides);

/** A port this test holds with a listener of its own, so that the server's listen fails with EADDRINUSE. */
async function takenPort(): Promise<number> {
  const holder = fixture('port holder', createServer(), (server: Server) => new Promise((resolve) => server.close(resolve)));
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const address = holder.address();
  if (address === null || typeof address === 'string') throw new Error('the port holder has no TCP address');
  return address.port;
}

/** The kinds of resource a start-up must not leave behind: timers, sockets and listeners. */
const TRACKED = new Set(['Timeout', 'TCPWRAP', 'TCPSERVERWRAP']);

/**
 * Records every timer, socket and listener the process makes from now on, and forgets each once it
 * is gone (a timer fired or cleared, a socket or listener closed), so that what a failed start-up
 * made and left behind can be named. It also sees what a part still running after the start-up
 * failed makes later: a table check that retries makes a timer and a socket for each attempt.
 */
function trackResources() {
  const live = new Map<number, { type: string; stack: string }>();
  // The test's own wait below makes timers too; they are not the start-up's.
  let ownTimer = false;
  const hook = createHook({
    init(id, type) {
      if (ownTimer || !TRACKED.has(type)) return;
      const stack = new Error().stack ?? '';
      // Jest's reporter runs in this process too when the run is in band; its timers are its own.
      if (!/node_modules\/(@jest|jest-)/.test(stack)) live.set(id, { type, stack });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  fixture('resource tracking', hook, (h) => h.disable());
  const pause = () =>
    new Promise<void>((resolve) => {
      ownTimer = true;
      setTimeout(resolve, 50);
      ownTimer = false;
    });
  // Each named by the first frames of the code that made it, past Node's own.
  const left = () =>
    [...live.values()].map(({ type, stack }) => {
      const frames = stack
        .split('\n')
        // Past the Error line and this hook's own frame.
        .slice(2)
        .filter((line) => !line.includes('(node:'));
      return `${type} made ${frames.slice(0, 3).join(' ← ').replace(/\s+/g, ' ')}`;
    });
  return {
    /**
     * Waits until everything recorded since trackResources() is gone. A socket closes a moment
     * after its destroy(), and the AWS SDK's connection timers run out a second after a refused
     * connection, so this is awaited rather than read once; a part that goes on working keeps
     * making new ones and does not let it pass. Not test/support/wait.ts's waitFor: its timers
     * would have to be told from the start-up's.
     */
    async nothingLeftOpen(ms = 10_000): Promise<void> {
      const deadline = Date.now() + ms;
      while (live.size > 0) {
        if (Date.now() > deadline) throw new Error(`left open after the failed start-up:\n${left().join('\n')}`);
        await pause();
      }
      hook.disable();
    },
  };
}

const warnings = (logs: ReturnType<typeof captureLogs>) => logs.entries().filter((entry) => entry.level === 40);

describe('a start-up that fails part-way', () => {
  it('on a taken port, calls off a table check still waiting for a DynamoDB that does not answer, and leaves nothing open', async () => {
    const logs = captureLogs();
    const port = await takenPort();
    // Nothing listens at this endpoint: the table check retries until STARTUP_DEADLINE_MS (a minute),
    // far longer than this test may take, unless the failed start-up calls it off.
    const config = loadConfig(
      env({ PORT: String(port), DYNAMODB_ENDPOINT: `http://127.0.0.1:${await spawnPort()}`, STARTUP_DEADLINE_MS: '60000' }),
    );
    const resources = trackResources();
    await expect(startApp(config)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await resources.nothingLeftOpen();
    // The check was called off by the start-up itself: that is no failure of a part to tell (the
    // outage log's line says that DynamoDB did not answer meanwhile).
    expect(warnings(logs).filter((entry) => 'part' in entry)).toEqual([]);
  });

  it('on a taken port, logs by name the failure of a table check nobody else awaited', async () => {
    const logs = captureLogs();
    const port = await takenPort();
    // The run's DynamoDB Local answers at once that the table does not exist, while the port is taken.
    const config = loadConfig(env({ PORT: String(port) }));
    const resources = trackResources();
    await expect(startApp(config)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await resources.nothingLeftOpen();
    expect(warnings(logs)).toEqual([
      expect.objectContaining({
        part: 'the table check',
        msg: "the table check failed too; the start-up's own failure is the one thrown",
        err: expect.objectContaining({ message: expect.stringContaining(`DynamoDB table "${config.tableName}" does not exist`) }),
      }),
    ]);
  });

  it('throws its own failure when a part also fails to close, logs that part by name, and still closes the rest', async () => {
    const logs = captureLogs();
    // Injected: the real rate budgets close without fail, so their close is made to fail once here.
    const close = restoredAfter(jest.spyOn(RateBudgets.prototype, 'close')).mockRejectedValueOnce(
      new Error('injected: the budgets did not close'),
    );
    // The table does not exist: the start-up fails once its server listens, after every part was opened.
    const config = loadConfig(env({}));
    const resources = trackResources();
    await expect(startApp(config)).rejects.toThrow(`DynamoDB table "${config.tableName}" does not exist`);
    expect(close).toHaveBeenCalledTimes(1);
    await resources.nothingLeftOpen();
    expect(warnings(logs)).toEqual([
      expect.objectContaining({
        part: 'closing the rate budgets',
        msg: "closing the rate budgets failed too; the start-up's own failure is the one thrown",
        err: expect.objectContaining({ message: 'injected: the budgets did not close' }),
      }),
    ]);
  });
});
