import express, { type Router } from 'express';
import { htmlPage } from './html-page';

/** What the board needs from the server: the development token it authenticates with. */
export interface JobBoardHints {
  token?: string;
}

/*
 * The board's script: plain browser JavaScript, no build step, no CDN (graphql-ws's UMD build is
 * served with GraphiQL's assets). It is fed by the same public subscriptions any client uses, and
 * resumes each of them by position after a reconnect, so it doubles as a worked example of
 * following jobs without missing an event:
 *   1. jobStatusChanges (the tenant's jobs) is subscribed first, and the job lists are read only
 *      after its SUBSCRIBED message, so a job created in between shows up as an event;
 *   2. each job shown gets a jobProgress subscription from the seq its read returned;
 *   3. on a lost socket every subscription is taken up again from the last position received.
 * The client is made with retryAttempts 0 and the board reconnects itself: graphql-ws's own retry
 * would resend each subscription with the variables it first had, i.e. from the old position.
 */
const BOARD_JS = `
(function () {
  var config = JSON.parse(document.getElementById('board-config').textContent);
  var httpUrl = new URL(config.path, location.href).href;
  var wsUrl = httpUrl.replace(/^http/, 'ws');
  // /jobs?system=1 shows the server's own jobs (migrations, archiving), which only an operator may
  // read: the operator token is given in the fragment (#token=…), which the browser never sends to
  // the server, so it stays out of request logs. Without one, the page's development token is used.
  var system = new URLSearchParams(location.search).get('system') === '1';
  var given = new URLSearchParams(location.hash.slice(1)).get('token');
  var token = given || config.token;
  var auth = token ? 'Bearer ' + token : '';
  var SYSTEM_ARG = system ? ', system: true' : '';
  var MAX_JOBS = 24;
  // A fan-out stage's own step reports no progress while its items run: its bar is drawn from
  // the stage's item counters (stageItemCounts), which every read and event of the job carries.
  var STAGE_COUNTS = 'stageItemCounts { stage total completed failed } ';
  var JOB_FIELDS = 'jobId projectId kind status phase progress seq createdAt maxAttempts ' + STAGE_COUNTS +
    'steps { name order attempt status progress worker error { code message } } ' +
    config.itemSelection;
  var EVENT_FIELDS = 'seq position type resumeAfterSeq job { jobId kind status phase progress seq ' + STAGE_COUNTS + '} ' +
    'step { name order attempt status progress worker error { code message } } ' + config.eventItemSelection;

  var jobs = new Map();       // jobId → { job, units: Map(key → unit), seq, live }
  var projects = new Map();   // projectId → its title once read (null while it is read, or for the system's own)
  var listsLoaded = false;    // until then an empty board means "not read yet", not "no jobs"
  var statusCursor = null;  // the cursor of the last message of jobStatusChanges received (the tenant's stream is sharded)
  var client = null;
  var connections = 0;
  var backoff = 500;
  var board = document.getElementById('jobs');
  if (system) document.getElementById('title').textContent = 'System jobs';
  var banner = document.getElementById('connection');

  // A refusal (e.g. FORBIDDEN: the system jobs without an operator token) is said on the page, not dropped.
  function refused(error) {
    var first = Array.isArray(error) ? error[0] : error;
    banner.textContent = 'refused: ' + ((first && first.message) || String(error));
    banner.className = 'down refused';
  }

  function gql(query, variables) {
    return fetch(httpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify({ query: query, variables: variables || {} }),
    }).then(function (res) { return res.json(); }).then(function (body) {
      if (body.errors && body.errors.length) throw new Error(body.errors[0].message);
      return body.data;
    });
  }

  // A unit is what a progress bar is drawn for: a step attempt's step, or a fan-out item.
  function unitKey(kind, name) { return kind + ':' + name; }
  function putStep(entry, step) {
    var key = unitKey('step', step.name);
    var old = entry.units.get(key);
    // The latest attempt of a step is the one to show.
    if (!old || old.attempt <= step.attempt)
      entry.units.set(key, { key: key, label: step.name, order: step.order, attempt: step.attempt, status: step.status,
        progress: step.progress, error: step.error && step.error.message });
  }
  function putItem(entry, item) {
    if (!item) return;
    var key = unitKey('item', item.stage + '#' + item.sequence);
    var old = entry.units.get(key);
    if (!old || old.attempt <= item.attempt)
      entry.units.set(key, { key: key, label: item.stage + ' ' + item.sequence, order: 1000 + item.sequence, attempt: item.attempt,
        status: item.status, progress: item.progress, error: item.error && item.error.message,
        lipSync: !!(item.inputs && item.inputs.needsLipSync) });
  }
  function putJob(job) {
    var entry = jobs.get(job.jobId);
    if (!entry) {
      entry = { job: job, units: new Map(), seq: 0, live: null };
      jobs.set(job.jobId, entry);
    }
    for (var k in job) if (job[k] !== undefined && k !== 'steps' && k !== 'items') entry.job[k] = job[k];
    (job.steps || []).forEach(function (s) { putStep(entry, s); });
    ((job.items && job.items.nodes) || []).forEach(function (i) { putItem(entry, i); });
    return entry;
  }

  function finished(status) { return status === 'COMPLETED' || status === 'CANCELLED'; }

  // The counters of the fan-out stage a step unit is, or null for a single step (or an item).
  function stageCounts(entry, unit) {
    if (unit.key !== unitKey('step', unit.label)) return null;
    var counts = (entry.job.stageItemCounts || []).filter(function (c) { return c.stage === unit.label; })[0];
    return counts && counts.total > 0 ? counts : null;
  }
  // What a unit's bar shows: a fan-out stage's completed share of its items, else the unit's own progress.
  function shownProgress(entry, unit) {
    var counts = stageCounts(entry, unit);
    if (!counts) return unit.progress;
    return unit.status === 'COMPLETED' ? 1 : counts.completed / counts.total;
  }

  function follow(entry) {
    if (entry.live || !client || finished(entry.job.status) && entry.seq >= entry.job.seq) return;
    var jobId = entry.job.jobId;
    entry.live = client.subscribe(
      { query: 'subscription Board($jobId: ID!, $afterSeq: Int) { jobProgress(jobId: $jobId, afterSeq: $afterSeq' + SYSTEM_ARG + ') { ' + EVENT_FIELDS + ' } }',
        variables: { jobId: jobId, afterSeq: entry.seq } },
      {
        next: function (result) {
          var e = result.data && result.data.jobProgress;
          if (!e) return;
          // ITEMS_ADDED names no item (it adds up to 80 at once): the job is read again with its
          // items, and followed from the seq of that read, like after a gap.
          if (e.type === 'RESYNC' || e.type === 'HISTORY_LOST' || e.type === 'ITEMS_ADDED') { reread(entry); return; }
          if (e.job) putJob(e.job);
          if (e.step) putStep(entry, e.step);
          if (e.item) putItem(entry, e.item);
          entry.seq = Math.max(entry.seq, e.position);
          draw();
        },
        error: function () { entry.live = null; },
        complete: function () { entry.live = null; },
      });
  }

  // After a gap the stream cannot fill: read the job again and follow it from there.
  function reread(entry) {
    if (entry.live) entry.live();
    entry.live = null;
    gql('query($id: ID!) { job(jobId: $id' + SYSTEM_ARG + ') { ' + JOB_FIELDS + ' } }', { id: entry.job.jobId }).then(function (data) {
      if (!data.job) return;
      putJob(data.job);
      entry.seq = data.job.seq;
      follow(entry);
      draw();
    });
  }

  function adopt(job) {
    var entry = jobs.get(job.jobId);
    if (entry) { putJob(job); return Promise.resolve(); }
    // A job the board has not seen: read it whole, then follow it from the seq of that read.
    return gql('query($id: ID!) { job(jobId: $id' + SYSTEM_ARG + ') { ' + JOB_FIELDS + ' } }', { id: job.jobId }).then(function (data) {
      if (!data.job || jobs.has(job.jobId)) return;
      var added = putJob(data.job);
      added.seq = data.job.seq;
      follow(added);
      prune();
      draw();
    });
  }

  // The lists name the jobs (their first page of each status); each is then read whole, with its
  // items, and followed from the seq of that read. (The lists leave the items out: a page of jobs
  // with a hundred items each is past the server's query cost limit.)
  function loadLists() {
    var statuses = ['RUNNING', 'PAUSED', 'QUEUED', 'FAILED', 'COMPLETED'];
    return Promise.all(statuses.map(function (status) {
      return gql('query($s: JobStatus!) { jobsByStatus(status: $s, first: 8' + SYSTEM_ARG + ') { nodes { jobId createdAt } } }', { s: status });
    })).then(function (lists) {
      var listed = [];
      lists.forEach(function (data) { listed = listed.concat(data.jobsByStatus.nodes); });
      listed.sort(function (a, b) { return b.createdAt.localeCompare(a.createdAt); });
      return Promise.all(listed.slice(0, MAX_JOBS).map(adopt));
    }).then(function () {
      // Drawn even when nothing was listed, so a fresh database shows its empty state, not a blank page.
      listsLoaded = true;
      draw();
    }).catch(refused);
  }

  function connect() {
    var generation = ++connections;
    banner.textContent = 'connecting…';
    banner.className = 'down';
    client = graphqlWs.createClient({
      url: wsUrl,
      lazy: false,
      retryAttempts: 0,
      keepAlive: 10000,
      connectionParams: auth ? { authorization: auth } : {},
      on: {
        connected: function () {
          backoff = 500;
          banner.textContent = 'live';
          banner.className = 'up';
        },
        closed: function () {
          if (generation !== connections) return;
          banner.textContent = 'reconnecting…';
          banner.className = 'down';
          jobs.forEach(function (entry) { entry.live = null; });
          var old = client;
          client = null;
          old.dispose();
          setTimeout(connect, backoff);
          backoff = Math.min(backoff * 2, 8000);
        },
      },
    });
    var listed = statusCursor !== null;
    client.subscribe(
      { query: 'subscription BoardStatus($cursor: String) { jobStatusChanges(afterCursor: $cursor' + SYSTEM_ARG + ') { cursor type job { jobId kind status phase progress seq } } }',
        variables: { cursor: statusCursor } },
      {
        next: function (result) {
          // A refused subscription (FORBIDDEN) comes as a result with errors, then completes.
          if (result.errors) { refused(result.errors); return; }
          var e = result.data && result.data.jobStatusChanges;
          if (!e) return;
          statusCursor = e.cursor;
          if (e.type === 'SUBSCRIBED') {
            if (!listed) { listed = true; loadLists(); }
            else jobs.forEach(follow);
            return;
          }
          if (e.job) adopt(e.job);
          var entry = e.job && jobs.get(e.job.jobId);
          if (entry) follow(entry);
          draw();
        },
        error: refused,
        complete: function () {},
      });
  }

  // Keep the newest jobs: drop the oldest finished ones past MAX_JOBS.
  function prune() {
    var all = Array.from(jobs.values()).sort(function (a, b) { return (b.job.createdAt || '').localeCompare(a.job.createdAt || ''); });
    all.slice(MAX_JOBS).forEach(function (entry) {
      if (!finished(entry.job.status)) return;
      if (entry.live) entry.live();
      jobs.delete(entry.job.jobId);
    });
  }

  function bar(progress, status) {
    var outer = document.createElement('div');
    outer.className = 'bar ' + String(status || '').toLowerCase();
    var inner = document.createElement('div');
    inner.style.width = Math.round(Math.max(0, Math.min(1, progress || 0)) * 100) + '%';
    outer.appendChild(inner);
    return outer;
  }
  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value;
    if (cls) el.className = cls;
    return el;
  }

  // A card names its project by title: each project is read once (the system's own jobs have none to read).
  function projectLabel(projectId) {
    if (!projectId || system) return null;
    if (!projects.has(projectId)) {
      projects.set(projectId, null);
      gql('query($id: ID!) { project(projectId: $id) { title } }', { id: projectId }).then(function (data) {
        projects.set(projectId, data.project ? data.project.title : projectId);
        draw();
      }, function () { projects.set(projectId, projectId); draw(); });
    }
    return projects.get(projectId) || projectId;
  }

  // What a card's label says, in the API's words: the phase while a step runs, else the status
  // (QUEUED is "queued", as the API has it), and a pause names what it waits for.
  function statusLabel(job) {
    if (job.status === 'RUNNING') return job.phase || 'running';
    if (job.status === 'PAUSED') return 'paused for review' + (job.phase && job.phase !== 'paused' ? ' · ' + job.phase : '');
    return String(job.status).toLowerCase();
  }

  var scheduled = false;
  function draw() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(function () {
      scheduled = false;
      var order = { RUNNING: 0, PAUSED: 1, QUEUED: 2, FAILED: 3, COMPLETED: 4, CANCELLED: 5 };
      var list = Array.from(jobs.values()).sort(function (a, b) {
        return (order[a.job.status] - order[b.job.status]) || (b.job.createdAt || '').localeCompare(a.job.createdAt || '');
      });
      var cards = list.map(function (entry) {
        var job = entry.job;
        var card = document.createElement('section');
        card.className = 'job';
        card.dataset.job = job.jobId;
        card.dataset.status = job.status;
        var head = document.createElement('header');
        head.appendChild(text('strong', job.kind));
        var label = statusLabel(job);
        // Coloured as the job's bar is, by its status.
        head.appendChild(text('span', label, 'phase ' + String(job.status).toLowerCase())).title = label;
        head.appendChild(text('span', Math.round((job.progress || 0) * 100) + '%', 'pct'));
        head.appendChild(text('code', job.jobId));
        card.appendChild(head);
        var project = projectLabel(job.projectId);
        if (project) card.appendChild(text('div', project, 'project')).title = job.projectId;
        card.appendChild(bar(job.progress, job.status));
        var units = Array.from(entry.units.values()).sort(function (a, b) { return a.order - b.order; });
        var grid = document.createElement('div');
        grid.className = 'units';
        units.forEach(function (unit) {
          var row = document.createElement('div');
          row.className = 'unit';
          row.dataset.unit = unit.key;
          row.dataset.status = unit.status;
          row.dataset.attempt = String(unit.attempt);
          var counts = stageCounts(entry, unit);
          row.appendChild(text('span', unit.label + (unit.lipSync ? ' ♪' : ''), 'name'));
          row.appendChild(bar(shownProgress(entry, unit), unit.status));
          row.appendChild(text('span', unit.status.toLowerCase() + (counts ? ' · ' + counts.completed + '/' + counts.total : '') +
            (unit.attempt > 1 ? ' · attempt ' + unit.attempt : ''), 'state'));
          if (unit.error) row.title = unit.error;
          grid.appendChild(row);
        });
        card.appendChild(grid);
        return card;
      });
      board.replaceChildren.apply(board, cards);
      if (!cards.length && listsLoaded)
        board.appendChild(text('p', system ? 'No system jobs yet: runMigrations or runArchive starts one.'
          : 'No jobs yet: create one in GraphiQL (/graphql) with createJob, or run npm run demo.', 'empty'));
    });
  }

  // For tests and the curious: what the board holds, without reading the DOM.
  window.jobBoard = {
    jobs: function () {
      return Array.from(jobs.values()).map(function (entry) {
        return { job: entry.job, seq: entry.seq, live: !!entry.live, units: Array.from(entry.units.values()).map(function (unit) {
          return Object.assign({ shown: shownProgress(entry, unit) }, unit);
        }) };
      });
    },
    connections: function () { return connections; },
    // Drops the socket as a network would, so a test can watch the board resume by position.
    dropConnection: function () { if (client) client.terminate(); },
  };
  connect();
})();
`;

const BOARD_CSS = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f5f6f8; color: #1f2a44; }
header.top { display: flex; gap: 1em; align-items: baseline; padding: 12px 20px; background: #1f2a44; color: #fff; }
header.top a { color: #e8b04a; }
#connection.up { color: #7bc47f; } #connection.down { color: #e8b04a; }
#jobs { display: grid; grid-template-columns: repeat(auto-fill, minmax(360px, 1fr)); gap: 12px; padding: 16px 20px; }
.job { background: #fff; border-radius: 8px; padding: 10px 12px; box-shadow: 0 1px 2px rgba(0,0,0,.08); }
.job header { display: flex; flex-wrap: wrap; gap: .2em .6em; align-items: baseline; margin-bottom: 6px; }
/* The id is never squeezed or cut: it keeps its width and, when the line is full, takes the next one. */
.job header code { margin-left: auto; color: #889; font-size: 11px; flex-shrink: 0; white-space: nowrap; }
/* A long phase (a free-form step's name) breaks where it must instead of pushing the id out of the card. */
.phase { color: #3fa7d6; min-width: 0; overflow-wrap: anywhere; } .pct { color: #556; }
.project { color: #556; font-size: 12px; margin: -2px 0 6px; overflow-wrap: anywhere; }
.bar { height: 8px; background: #e6e8ee; border-radius: 4px; overflow: hidden; }
.bar > div { height: 100%; background: #3fa7d6; transition: width .3s; }
.bar.failed > div { width: 100% !important; }
/* A job's label is coloured as its bar is: blue while running, amber while paused for review, and so on. */
.bar.completed > div { background: #4e9a52; } .phase.completed { color: #4e9a52; }
.bar.failed > div { background: #d9534f; } .phase.failed { color: #d9534f; }
.bar.paused > div { background: #c7850f; } .phase.paused { color: #c7850f; }
.phase.queued, .phase.cancelled { color: #667; }
.units { display: grid; grid-template-columns: 1fr; gap: 3px; margin-top: 8px; }
.unit { display: grid; grid-template-columns: 120px 1fr 130px; gap: 8px; align-items: center; font-size: 12px; }
.unit .bar { height: 6px; } .unit .state { color: #667; }
.empty { color: #667; grid-column: 1 / -1; }
`;

function page(hints: JobBoardHints, selections: BoardSelections): string {
  const config = { path: '/graphql', token: hints.token ?? null, ...selections };
  return htmlPage({
    title: 'Jobs · Artissist',
    head: `<style>${BOARD_CSS}</style>`,
    body:
      '<header class="top"><strong id="title">Jobs</strong><span id="connection" class="down">connecting…</span><a href="/graphql">GraphiQL</a></header>\n' +
      '<main id="jobs"><p class="empty">Reading the jobs…</p></main>',
    configId: 'board-config',
    config,
    scripts: ['/graphiql/assets/graphql-ws.min.js', '/jobs/board.js'],
  });
}

/** The selections of fan-out items the board adds to its job reads and events (none when jobs have no items). */
export interface BoardSelections {
  itemSelection: string;
  eventItemSelection: string;
}

/** What the board selects of fan-out work items: a job's items when it is read, and the item an event changed. */
export const BOARD_SELECTIONS: BoardSelections = {
  itemSelection: 'items(first: 100) { nodes { stage sequence status attempt progress inputs error { code message } } }',
  eventItemSelection: 'item { stage sequence status attempt progress inputs error { code message } }',
};

/**
 * The live job board, served at /jobs in development beside GraphiQL (whose assets it shares):
 * the tenant's jobs with a progress bar per job and per step or item, fed by jobStatusChanges and
 * jobProgress and resuming each by position after a reconnect. At /jobs?system=1, with an operator
 * token in the URL's fragment, it shows the server's own jobs (migrations, archiving) the same way.
 * It is a page, not an API: every byte of data it shows comes through the public GraphQL API with
 * the token it is given.
 */
export function jobBoardRouter(hints: () => Promise<JobBoardHints>, selections: BoardSelections): Router {
  const router = express.Router();
  router.get('/jobs', (_req, res, next) => {
    hints()
      .then((h) => void res.type('html').set('Cache-Control', 'no-store').send(page(h, selections)))
      .catch(next);
  });
  router.get('/jobs/board.js', (_req, res) => {
    res.type('text/javascript').set('Cache-Control', 'no-store').send(BOARD_JS);
  });
  return router;
}
