// Follows a project's activity and never misses or repeats an event, across dropped connections.
//
//   node examples/follow-stream.mjs <http://host:port/graphql> <token> <projectId> [--drop-every N] [--stop-after N]
//
// The rule a client needs: remember the `position` of the last message you received (of any
// kind: an event, the acknowledgement, history lost) and resubscribe with `after` set to it.
// The server then sends, in order, exactly the events you have not seen.
//
// --drop-every N cuts the connection after every N events, to show the resumption; --stop-after N
// exits once N events have been printed. Each event is printed as one JSON line.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, token, projectId] = process.argv.slice(2);
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? Number.POSITIVE_INFINITY : Number(process.argv[at + 1]);
};
const dropEvery = option('--drop-every');
const stopAfter = option('--stop-after');
if (!url || !token || !projectId) {
  console.error('usage: node examples/follow-stream.mjs <graphql url> <token> <projectId> [--drop-every N] [--stop-after N]');
  process.exit(2);
}

const query = `subscription Follow($projectId: ID!, $after: Int) {
  projectActivity(projectId: $projectId, after: $after) { position eventId action subjectType subjectId at }
}`;

let after = null; // null: from now on; a position: everything after it
let printed = 0;

/** One subscription from `after`; resolves when it ends (dropped on purpose, or by the network). */
function follow() {
  return new Promise((resolve) => {
    const client = createClient({
      url: url.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      // A dropped connection ends this subscription; the loop below resubscribes from the position.
      retryAttempts: 0,
    });
    let sinceConnect = 0;
    // Once this client unsubscribed, what was already on its way is not for it: it resumes from `after`.
    let active = true;
    const stop = client.subscribe(
      { query, variables: { projectId, after } },
      {
        next: ({ data, errors }) => {
          if (!active) return;
          if (errors) {
            console.error(JSON.stringify(errors));
            process.exit(1);
          }
          const message = data.projectActivity;
          // Whatever the message, its position is where to resume from.
          after = message.position;
          if (message.action === 'subscription.started') {
            console.error(`subscribed: covered from position ${message.position} on`);
            return;
          }
          if (message.action === 'subscription.history_lost') {
            // The position was older than the stored events (EVENT_RETENTION_DAYS): nothing is
            // replayed. Re-query what you show (e.g. the project's logs), then read on.
            console.error(`history lost: re-query the project, then read on from ${message.position}`);
            return;
          }
          if (message.action === 'subscription.resync') return; // this client read too slowly; resubscribe below
          console.log(JSON.stringify(message));
          printed++;
          sinceConnect++;
          if (printed >= stopAfter) {
            active = false;
            stop();
            Promise.resolve(client.dispose()).then(() => process.exit(0));
          } else if (sinceConnect >= dropEvery) {
            active = false;
            stop();
            Promise.resolve(client.dispose()).then(resolve);
          }
        },
        error: () => Promise.resolve(client.dispose()).then(resolve),
        complete: () => Promise.resolve(client.dispose()).then(resolve),
      },
    );
  });
}

for (;;) {
  await follow();
  await new Promise((r) => setTimeout(r, 200));
}
