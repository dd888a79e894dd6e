import { createServer, type Socket, connect } from 'node:net';

/**
 * Turns between jest's workers: a readers-writer lock held over a socket. The tests of a file whose
 * docblock says `@alone` (a latency or rate bound that another file's load on the same two cores
 * would bend) run while no other file runs: it loads and runs its `beforeAll` hooks on a shared
 * turn, and gives that back for an alone one at its first test (test/support/environment.ts);
 * every other file runs beside any file but one that holds an alone turn.
 *
 * The lock lives in jest's own process (globalSetup starts it, globalTeardown closes it) and a
 * worker holds its turn for as long as its socket is open, so a worker that dies gives its turn
 * back with its socket. Turns are granted first come, first served: a waiting `@alone` file is
 * never passed by files that asked after it, and the shared files that asked before it run
 * together.
 */
export interface TurnServer {
  port: number;
  /** The turns held now, by kind: what the unit test counts. */
  held(): { alone: number; shared: number; waiting: number };
  /** Stops listening and drops every connection (jest's run is over). */
  close(): Promise<void>;
}

type Kind = 'alone' | 'shared';
interface Ask {
  kind: Kind;
  socket: Socket;
}

/** Listens on 127.0.0.1 on a free port; resolves once it does, rejects if it cannot. */
export function startTurnServer(): Promise<TurnServer> {
  const waiting: Ask[] = [];
  const holding = new Map<Socket, Kind>();
  const count = (kind: Kind) => [...holding.values()].filter((k) => k === kind).length;

  // Grants from the head of the queue: an `@alone` file once nothing is held, shared files while
  // no `@alone` file holds a turn, stopping at the first ask that cannot be granted yet.
  const grant = () => {
    while (waiting.length > 0) {
      const head = waiting[0];
      if (head.kind === 'alone' ? holding.size > 0 : count('alone') > 0) return;
      waiting.shift();
      holding.set(head.socket, head.kind);
      head.socket.write('go\n');
    }
  };

  const server = createServer((socket) => {
    let asked = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      asked += chunk;
      if (!asked.includes('\n')) return;
      const kind = asked.trim();
      if (kind !== 'alone' && kind !== 'shared') {
        socket.end(`unknown turn ${JSON.stringify(kind)}\n`);
        return;
      }
      waiting.push({ kind, socket });
      grant();
    });
    // A turn ends with its socket, however it ends: the file is done, or its worker died.
    socket.on('close', () => {
      holding.delete(socket);
      const at = waiting.findIndex((ask) => ask.socket === socket);
      if (at >= 0) waiting.splice(at, 1);
      grant();
    });
    // A reset from a dying worker is its turn's end, which 'close' handles.
    socket.on('error', () => {});
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('the turn server has no TCP address'));
        return;
      }
      resolve({
        port: address.port,
        held: () => ({ alone: count('alone'), shared: count('shared'), waiting: waiting.length }),
        close: () =>
          new Promise<void>((done, fail) => {
            for (const socket of holding.keys()) socket.destroy();
            for (const ask of waiting) ask.socket.destroy();
            server.close((error) => (error ? fail(error) : done()));
          }),
      });
    });
  });
}

/** A turn a test file holds: `release` gives it back (once; again does nothing), and throws if the server dropped it first. */
export interface Turn {
  release(): void;
  /** Resolves once the connection that holds it has closed: released, or dropped by the server. */
  closed: Promise<void>;
}

/**
 * Asks the turn server on `port` for a turn of `kind` and resolves once it is granted (which may
 * be after other files finish); rejects if the server cannot be reached or closes first.
 */
export function takeTurn(port: number, kind: Kind): Promise<Turn> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let answer = '';
    const refuse = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setEncoding('utf8');
    socket.once('error', refuse);
    socket.once('close', () => refuse(new Error(`the turn server closed before granting an ${kind} turn`)));
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (!answer.includes('\n')) return;
      if (answer !== 'go\n') {
        refuse(new Error(`the turn server answered: ${answer.trim()}`));
        return;
      }
      socket.removeAllListeners('close');
      socket.removeAllListeners('error');
      // After the grant the turn is only held. If the server drops it first (its process ends),
      // the file ran on without its turn: release says so, and the file fails.
      let lost: Error | undefined;
      let released = false;
      socket.on('error', (error) => {
        lost ??= error;
      });
      const closed = new Promise<void>((done) => socket.once('close', () => done()));
      resolve({
        closed,
        release: () => {
          if (released) return;
          released = true;
          if (socket.destroyed) throw lost ?? new Error(`the turn server dropped a ${kind} turn while the file held it`);
          socket.destroy();
        },
      });
    });
    socket.write(`${kind}\n`);
  });
}
