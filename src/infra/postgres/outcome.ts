import { DatabaseError } from 'pg';
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
