import { readFileSync } from 'node:fs';
import { ensurePortFree } from '../../src/infra/free-port';

/** The lowest port drawn: above the registered ports most services on a developer's machine use. */
const LOWEST = 20_000;

/** The first port of the range the OS hands out on its own (Linux's ip_local_port_range; its default where unreadable). */
function ephemeralStart(): number {
  try {
    const first = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(first) && first > LOWEST + 1000 ? first : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A port free on 127.0.0.1 now, for a process a test starts to listen on later (a server with
 * PORT, redis-server, PostgreSQL). Drawn at random below the OS's ephemeral range, never from it:
 * a port the OS chose (freePort) is released before that process listens, seconds later for a
 * server that starts DynamoDB Local first, and in that gap the OS may give it to any listener on
 * port 0, such as another test file's server (a clean-clone run met it: "port … is in use"). Below
 * the range, only another test's draw can take it in the gap, one of about 12,000. Rejects after
 * 100 draws that were all taken.
 */
export async function spawnPort(): Promise<number> {
  const span = ephemeralStart() - LOWEST;
  for (let draw = 0; draw < 100; draw++) {
    const port = LOWEST + Math.floor(Math.random() * span);
    try {
      await ensurePortFree(port, '127.0.0.1');
      return port;
    } catch {
      // Taken (or refused): draw again.
    }
  }
  throw new Error('No free port below the ephemeral range in 100 draws.');
}
