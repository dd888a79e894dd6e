import { dirname, join } from 'node:path';
import express, { type Router } from 'express';
import { htmlPage } from './html-page';
import { reviewStages } from '../job/job.kinds';
import { THREE_D_CHARACTER } from '../pipelines/pipelines.kinds';

/**
 * What the page shows beyond the schema: the token to prefill and ids for the example tabs. A tab
 * whose id is missing says so in a comment and runs something that works instead, never an
 * operation on a made-up id.
 */
export interface GraphiQLHints {
  /** Prefilled as the Authorization header (development only). */
  token?: string;
  projectId?: string;
  /** A job to watch: one that is running, or else one that ran (WatchJob replays its events). */
  jobId?: string;
  /** A job paused for review right now, and its paused step: what the AwaitingReview tab approves. */
  reviewJobId?: string;
  reviewStepName?: string;
}

/** A property of a JSON value, or undefined where the value has none. */
const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? Object.entries(value).find(([k]) => k === key)?.[1] : undefined;

/**
 * Ids of the token's tenant for the example tabs, asked through the server's own public API at
 * `url` (one query, as the page's user could run it): a project, the job most worth watching (a
 * running one, else a queued, paused or finished one) and a step paused for review. What the
 * tenant does not have is left out; a failed lookup throws.
 */
export async function exampleIdsFromApi(url: string, token: string): Promise<Omit<GraphiQLHints, 'token'>> {
  const jobs = (status: string) => `${status.toLowerCase()}: jobsByStatus(status: ${status}, first: 1) { nodes { jobId } }`;
  const query = `{ projects(first: 1) { nodes { projectId } } ${['RUNNING', 'QUEUED', 'PAUSED', 'COMPLETED'].map(jobs).join(' ')}
    stepsAwaitingReview(first: 1) { nodes { jobId name } } }`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(5000),
  });
  const data = field(await res.json(), 'data');
  const first = (list: string, key: string): string | undefined => {
    const nodes = field(field(data, list), 'nodes');
    const value = Array.isArray(nodes) ? field(nodes[0], key) : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  const review = first('stepsAwaitingReview', 'jobId');
  return {
    projectId: first('projects', 'projectId'),
    jobId: first('running', 'jobId') ?? first('queued', 'jobId') ?? first('paused', 'jobId') ?? first('completed', 'jobId'),
    reviewJobId: review,
    reviewStepName: review ? first('stepsAwaitingReview', 'name') : undefined,
  };
}

const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/** The packages the page is built from: development dependencies, absent from a production install (`npm ci --omit=dev`). */
export const GRAPHIQL_PACKAGES = ['graphiql', 'react', 'react-dom'];

/**
 * The files the page loads, all from installed packages: nothing comes from a CDN. Resolved when
 * the page is turned on, not when this module loads, so a production install without GraphiQL's
 * packages runs as long as GRAPHIQL is off, and turning it on there fails at start-up, saying why.
 */
function pageAssets(): Record<string, { file: string; type: string }> {
  const missing = GRAPHIQL_PACKAGES.filter((name) => {
    try {
      packageDir(name);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length) {
    throw new Error(
      `GRAPHIQL is on but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not installed: ` +
        'they are development dependencies (install without --omit=dev) or set GRAPHIQL=false.',
    );
  }
  return {
    'react.production.min.js': { file: join(packageDir('react'), 'umd/react.production.min.js'), type: 'text/javascript' },
    'react-dom.production.min.js': { file: join(packageDir('react-dom'), 'umd/react-dom.production.min.js'), type: 'text/javascript' },
    'graphiql.min.js': { file: join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript' },
    'graphiql.min.css': { file: join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css' },
    'graphql-ws.min.js': { file: join(packageDir('graphql-ws'), 'umd/graphql-ws.min.js'), type: 'text/javascript' },
  };
}

/*
 * The page's own script. Queries and mutations go over HTTP through GraphiQL's fetcher;
 * subscriptions go over graphql-ws on the same URL, authenticated with the Authorization header
 * from GraphiQL's headers editor (the socket is renewed when that header changes).
 */
const APP_JS = `
(function () {
  var config = JSON.parse(document.getElementById('graphiql-config').textContent);
  // GraphiQL keeps its tabs in localStorage, and would show yesterday's ids after a restart (or
  // the job approved a minute ago): when the ids the server hands out changed since this browser
  // last loaded the page, the stored tabs go and the examples come back with today's ids.
  try {
    if (localStorage.getItem('artissist:examples') !== config.examplesKey) {
      ['graphiql:tabState', 'graphiql:query', 'graphiql:variables', 'graphiql:headers', 'graphiql:operationName'].forEach(function (key) {
        localStorage.removeItem(key);
      });
      localStorage.setItem('artissist:examples', config.examplesKey);
    }
  } catch (e) {
    // Storage may be off (private mode): GraphiQL then starts from the examples anyway.
  }
  var httpUrl = new URL(config.path, location.href).href;
  var wsUrl = httpUrl.replace(/^http/, 'ws');
  var http = GraphiQL.createFetcher({ url: httpUrl });
  var ws = null, wsAuth = null;
  function socketFor(auth) {
    if (!ws || wsAuth !== auth) {
      if (ws) ws.dispose();
      wsAuth = auth;
      ws = graphqlWs.createClient({ url: wsUrl, lazy: true, connectionParams: auth ? { authorization: auth } : {} });
    }
    return ws;
  }
  function header(headers, name) {
    for (var key in headers || {}) if (key.toLowerCase() === name) return headers[key];
    return undefined;
  }
  function operationType(params) {
    var query = params.query || '';
    var name = params.operationName;
    var re = /\\b(query|mutation|subscription)\\b\\s*([_A-Za-z][_0-9A-Za-z]*)?/g, match, first = null;
    while ((match = re.exec(query))) {
      if (!first) first = match[1];
      if (name && match[2] === name) return match[1];
    }
    return first || 'query';
  }
  // Right after a tab switch GraphiQL can still send the previous tab's operation name with this
  // tab's document, which the server refuses ("Unknown operation named …"). A document with one
  // operation is sent with that operation's own name instead.
  function ownOperationName(params) {
    var source = (params.query || '').replace(/#[^\\n]*/g, '');
    var re = /\\b(query|mutation|subscription)\\b\\s*([_A-Za-z][_0-9A-Za-z]*)?/g, match, names = [];
    while ((match = re.exec(source))) names.push(match[2] || null);
    if (!params.operationName || names.length !== 1 || names[0] === params.operationName) return params;
    var fixed = Object.assign({}, params);
    if (names[0]) fixed.operationName = names[0];
    else delete fixed.operationName;
    return fixed;
  }
  function fetcher(params, options) {
    params = ownOperationName(params);
    if (operationType(params) !== 'subscription') return http(params, options);
    return socketFor(header(options && options.headers, 'authorization')).iterate(params);
  }
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultTabs: config.tabs,
      defaultHeaders: config.headers,
      // GraphiQL fills the active tab's editors from these, not from defaultTabs.
      variables: config.tabs[0].variables,
      shouldPersistHeaders: true,
      defaultEditorToolsVisibility: true,
    })
  );
})();
`;

/** A palette in a rounded square: the studio's mark. */
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f2a44"/><circle cx="11" cy="12" r="4" fill="#e8b04a"/><circle cx="21" cy="11" r="3.5" fill="#d9534f"/><circle cx="12" cy="22" r="3.5" fill="#3fa7d6"/><circle cx="21.5" cy="20.5" r="4" fill="#7bc47f"/></svg>`;

const DEMO_TIP = 'For demo data that moves, restart with `npm run demo`.';

/**
 * The widest line a tab holds: GraphiQL's editor (CodeMirror, which does not wrap) shows about 65
 * characters at 1,400 px beside the result pane, and a line past its edge is cut off. The browser
 * test measures every tab's lines against the editor's edge.
 */
const TAB_WIDTH = 58;

/** `text` as comment lines of at most TAB_WIDTH characters, broken between words. */
function comment(text: string): string {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length > 1 && line.length + 1 + word.length > TAB_WIDTH) {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  return `${[...lines, line].join('\n')}\n`;
}

/** The example tabs, each on an id the hints name, or with a comment and a working operation where there is none. */
function tabs(hints: GraphiQLHints) {
  const { projectId, jobId, reviewJobId, reviewStepName } = hints;
  const headers = hints.token ? JSON.stringify({ Authorization: `Bearer ${hints.token}` }, null, 2) : undefined;
  const tab = (query: string, variables: object = {}) => ({ query, variables: JSON.stringify(variables, null, 2), headers });
  return [
    projectId
      ? tab(
          `${comment("The frontend's query: a project's logs.")}query GetProjectLogs($projectId: ID!) {\n  logs(projectId: $projectId) {\n    logId\n    materials\n    timeSpentMinutes\n  }\n}\n`,
          { projectId },
        )
      : tab(
          comment(`Your tenant has no project yet, so GetProjectLogs has none to read. ${DEMO_TIP}`) +
            comment('Or create one here, then reload the page: the tabs then use it.') +
            'mutation CreateProject {\n  createProject(\n    input: { title: "My first project", medium: "oil" }\n  ) {\n    projectId\n    version\n  }\n}\n',
        ),
    jobId
      ? tab(
          comment(
            'Live progress of a job: its events so far (afterSeq: 0 replays them), then the steps as they advance (a music video\u2019s scenes render in parallel: ITEM_* events, each with its item).',
          ) +
            comment('The subscription completes when the job does. The job board (/jobs) draws the same streams.') +
            'subscription WatchJob($jobId: ID!, $afterSeq: Int) {\n  jobProgress(jobId: $jobId, afterSeq: $afterSeq) {\n    seq\n    type\n    job {\n      status phase currentStep progress\n      itemCounts { total running completed }\n    }\n    step { name attempt status progress }\n    item { stage sequence attempt status progress }\n  }\n}\n',
          { jobId, afterSeq: 0 },
        )
      : tab(
          comment(`Your tenant has no job yet, so there is no progress to watch. ${DEMO_TIP}`) +
            comment(
              projectId
                ? 'Or start one with the CreateJob tab, then reload the page. Meanwhile, the pipelines you can start:'
                : 'Or create a project in the first tab and reload: a CreateJob tab then starts one. The pipelines you can start:',
            ) +
            'query JobKinds {\n  jobKinds {\n    name\n    description\n    stages { name phase review }\n  }\n}\n',
        ),
    projectId
      ? tab(
          // No steps: a declared kind plans itself from its stages (see jobKinds), its review stage included.
          comment(
            'Start a pipeline job (idempotent: the same inputs return the same job). 3D_CHARACTER is a declared kind: its stages, and the one that pauses for review, come from its declaration (the JobKinds query lists them).',
          ) +
            'mutation CreateJob($input: CreateJobInput!) {\n  createJob(input: $input) {\n    jobId\n    status\n    seq\n    plan { name order }\n  }\n}\n',
          {
            input: {
              projectId,
              kind: '3D_CHARACTER',
              inputs: { prompt: 'a friendly robot' },
            },
          },
        )
      : tab(
          comment(`A job belongs to a project: create one in the first tab, then reload the page. ${DEMO_TIP}`) +
            comment('Meanwhile, your recent jobs:') +
            'query MyJobs {\n  myJobs(first: 5) {\n    nodes { jobId kind status }\n  }\n}\n',
        ),
    tab(
      `${comment('Steps paused for review, newest first.')}query AwaitingReview {\n  stepsAwaitingReview {\n    nodes { jobId name attempt }\n  }\n}\n`,
    ),
    reviewJobId && reviewStepName
      ? tab(
          comment('Approve a step paused for review: the variables name the one paused when this page loaded (see AwaitingReview).') +
            'mutation Approve($jobId: ID!, $stepName: String!) {\n  approveStep(jobId: $jobId, stepName: $stepName) {\n    jobId\n    status\n    currentStep\n  }\n}\n',
          { jobId: reviewJobId, stepName: reviewStepName },
        )
      : tab(
          comment('No step was paused for review when this page loaded, so there is nothing to approve yet.') +
            comment(
              `In the demo a new 3D_CHARACTER job pauses at \`${reviewStages(THREE_D_CHARACTER).join('`, `')}\` a few seconds after each approval. Run this (or the AwaitingReview tab) to see when one is paused, then reload the page: this tab then approves it with`,
            ) +
            '#   mutation Approve($jobId: ID!, $stepName: String!) {\n' +
            '#     approveStep(jobId: $jobId, stepName: $stepName) {\n' +
            '#       jobId status\n' +
            '#     }\n' +
            '#   }\n' +
            'query PausedNow {\n  stepsAwaitingReview(first: 1) {\n    nodes { jobId name attempt }\n  }\n}\n',
        ),
  ];
}

function page(hints: GraphiQLHints): string {
  const config = {
    path: '/graphql',
    tabs: tabs(hints),
    // Changes whenever an example id or the token does (see APP_JS).
    examplesKey: JSON.stringify([hints.token ?? '', hints.projectId ?? '', hints.jobId ?? '', hints.reviewJobId ?? '']),
    headers: hints.token ? JSON.stringify({ Authorization: `Bearer ${hints.token}` }, null, 2) : undefined,
  };
  return htmlPage({
    title: 'Artissist GraphQL',
    head: '<link rel="stylesheet" href="/graphiql/assets/graphiql.min.css">\n<style>html, body, #graphiql { height: 100%; margin: 0; }</style>',
    body: '<div id="graphiql">Loading GraphiQL…</div>',
    configId: 'graphiql-config',
    config,
    scripts: ['react.production.min.js', 'react-dom.production.min.js', 'graphiql.min.js', 'graphql-ws.min.js', 'app.js'].map(
      (name) => `/graphiql/assets/${name}`,
    ),
  });
}

/**
 * GraphiQL, self-hosted: a browser's GET of /graphql (Accept: text/html, no query) gets the page;
 * its scripts and styles come from /graphiql/assets, read from installed packages. `hints` is
 * asked on every page load, so the tabs show what the demo is doing now.
 */
export function graphiqlRouter(hints: () => GraphiQLHints | Promise<GraphiQLHints>): Router {
  const assets = pageAssets();
  const router = express.Router();
  router.get('/graphql', async (req, res, next) => {
    // curl and GraphQL clients (*/* or JSON) fall through to the API; browsers prefer HTML.
    if (req.query.query !== undefined || req.accepts(['application/json', 'text/html']) !== 'text/html') return next();
    // Ids that cannot be looked up (the store is down, say) leave tabs that say so; the page still loads.
    const named = await Promise.resolve()
      .then(hints)
      .catch((): GraphiQLHints => ({}));
    res.type('html').set('Cache-Control', 'no-store').send(page(named));
  });
  // Browsers ask for /favicon.ico on every page; an SVG answers it (they accept one by its type).
  router.get('/favicon.ico', (_req, res) => {
    res.type('image/svg+xml').set('Cache-Control', 'public, max-age=86400').send(FAVICON);
  });
  router.get('/graphiql/assets/app.js', (_req, res) => {
    res.type('text/javascript').send(APP_JS);
  });
  router.get('/graphiql/assets/:name', (req, res, next) => {
    const asset = assets[req.params.name];
    if (!asset) return next();
    res.type(asset.type).set('Cache-Control', 'public, max-age=86400').sendFile(asset.file);
  });
  return router;
}
