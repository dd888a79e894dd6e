import { DatabaseError, type PoolClient } from 'pg';
import { classify } from '../dependency';
import type { CallOutcome } from '../metrics';

/**
 * SQLSTATE classes that mean the connection or the server went away, not that the statement was
 * wrong: 08 (connection exception) and 57 (operator intervention: 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now, which a server shutting down, restarting or
 * recovering answers).
 */
const OUTAGE_CLASSES = new Set(['08', '57']);

/**
 * What a failed PostgreSQL call means, as a call outcome (as `redisOutcome` for Redis). A statement
 * PostgreSQL refused for what it is (a constraint, a syntax, a right) is `error`, the server's
 * verdict and not an outage. A refusal because the server is going away or not up yet (see
 * OUTAGE_CLASSES), and anything node-postgres raises itself (a socket error, a connection that
 * ended, no connection within the pool's bound), is an outage: a socket error's own code where it
 * has one (see dependency.ts `classify`), else `unreachable`.
 */
export function postgresOutcome(error: unknown): CallOutcome {
  if (error instanceof DatabaseError) return OUTAGE_CLASSES.has(String(error.code).slice(0, 2)) ? 'unreachable' : 'error';
  const outcome = classify(error);
  return outcome === 'error' ? 'unreachable' : outcome;
}

/**
 * Runs `work` on `client`, a connection just taken from its pool, and gives it back. A connection
 * lost between two statements (a restart ends every session) is told as the client's 'error'
 * event, with no query to reject: without a listener it would be thrown as an uncaught exception;
 * lost during a statement, the event comes before that statement's rejection. `failed` says of
 * what `work` threw (and the connection's loss, if it was lost) whether the connection broke, and
 * what to throw instead; a broken one is dropped from the pool rather than handed to its next user
 * (by default any failure breaks it, and the error is thrown as it is).
 */
export async function onConnection<T>(
  client: PoolClient,
  work: (client: PoolClient) => Promise<T>,
  failed: (error: unknown, lost: Error | undefined) => { broke: boolean; error: unknown } = (error) => ({ broke: true, error }),
): Promise<T> {
  let lost: Error | undefined;
  const onLost = (error: Error) => {
    lost = error;
  };
  client.on('error', onLost);
  let broken: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    const verdict = failed(error, lost);
    if (verdict.broke) broken = lost ?? (error instanceof Error ? error : new Error(String(error)));
    throw verdict.error;
  } finally {
    // A failed connection keeps the listener: the pool drops it, and a late error of it has nowhere else to go.
    if (!broken) client.removeListener('error', onLost);
    client.release(broken);
  }
}
