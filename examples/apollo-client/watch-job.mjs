// Watches a job with Apollo Client in Node: the default InMemoryCache (no typePolicies), queries
// over HTTP, the job's events over GraphQLWsLink, and a subscription that survives a dropped
// connection without missing or repeating an event.
//
//   node examples/apollo-client/watch-job.mjs <http://host:port/graphql> <token> <jobId> [--drop-after N]
//
// graphql-ws reconnects by itself (retryAttempts), but it subscribes again with the variables of
// the first subscribe. So on every reconnection this client subscribes again from the position of
// the last message it received (afterSeq), and drops anything at or below it.
// --drop-after N cuts the connection once after N events, to show the resumption. It prints one
// JSON line per event, then the job as the cache holds it, and exits when the job finishes.
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';

const [url, token, jobId] = process.argv.slice(2);
const dropAt = process.argv.indexOf('--drop-after');
const dropAfter = dropAt === -1 ? Number.POSITIVE_INFINITY : Number(process.argv[dropAt + 1]);
if (!url || !token || !jobId) {
  console.error('usage: node examples/apollo-client/watch-job.mjs <graphql url> <token> <jobId> [--drop-after N]');
  process.exit(2);
}

const authorization = `Bearer ${token}`;
let connections = 0;
const ws = createClient({
  url: url.replace(/^http/, 'ws'),
  webSocketImpl: WebSocket,
  connectionParams: { authorization },
  retryAttempts: Number.POSITIVE_INFINITY,
  // A socket closed by the network or a restarting server is worth retrying too.
  shouldRetry: () => true,
  on: {
    connected: () => {
      connections++;
      // graphql-ws re-sent the first subscribe; subscribe again from where this client is.
      if (connections > 1) {
        console.log(JSON.stringify({ reconnected: connections - 1, resumeAfter: last }));
        follow();
      }
    },
  },
});
const client = new ApolloClient({
  cache: new InMemoryCache(),
  link: ApolloLink.split(
    ({ query }) => query.definitions.some((d) => d.kind === 'OperationDefinition' && d.operation === 'subscription'),
    new GraphQLWsLink(ws),
    new HttpLink({ uri: url, headers: { authorization } }),
  ),
});

const JOB = gql`
  query Job($jobId: ID!) {
    job(jobId: $jobId) { id seq status currentStep progress }
  }
`;
const WATCH = gql`
  subscription WatchJob($jobId: ID!, $afterSeq: Int) {
    jobProgress(jobId: $jobId, afterSeq: $afterSeq) {
      position
      type
      job { id seq status currentStep progress }
      step { id name status progress }
    }
  }
`;

// Render from a snapshot, then follow from its seq: nothing between the two is missed.
const { data } = await client.query({ query: JOB, variables: { jobId } });
console.log(JSON.stringify({ snapshot: data.job }));
let last = data.job.seq;
let events = 0;
let dropped = false;
let current;

function follow() {
  current?.unsubscribe();
  current = client.subscribe({ query: WATCH, variables: { jobId, afterSeq: last } }).subscribe({
    next: ({ data: message }) => {
      const event = message.jobProgress;
      if (event.position <= last && event.type !== 'SUBSCRIBED') return; // a repeat from a re-sent subscribe
      last = Math.max(last, event.position);
      if (event.type === 'SUBSCRIBED') return;
      if (event.type === 'HISTORY_LOST' || event.type === 'RESYNC') return follow();
      events++;
      // The event's job has the same id as the cached one: the cache now holds this state.
      console.log(JSON.stringify({ position: event.position, type: event.type, status: event.job?.status }));
      if (events >= dropAfter && !dropped) {
        dropped = true;
        ws.terminate(); // as a network failure would; graphql-ws reconnects
      }
    },
    error: (error) => {
      console.error(String(error));
      process.exit(1);
    },
    complete: () => {
      const cached = client.readQuery({ query: JOB, variables: { jobId } });
      console.log(JSON.stringify({ cached: cached.job }));
      client.stop();
      ws.dispose();
      process.exit(0);
    },
  });
}

follow();
