import { readFileSync } from 'node:fs';

/*
 * What a V8 heap snapshot holds, grouped so that what one subscription (or one socket) holds can be
 * named: objects by constructor (plain objects by their first property names), closures by name and
 * source location, closure contexts by the variables they hold, arrays by kind. Two snapshots of one
 * process are compared by node id (stable across snapshots of one process), so the objects a step
 * added are exactly those whose id the earlier snapshot lacks. Retained sizes come from the
 * dominator tree (Cooper, Harvey and Kennedy's iterative algorithm), weak edges ignored.
 */

export interface Heap {
  count: number;
  labels: string[];
  /** The label of each node, as an index into `labels`. */
  labelOf: Int32Array;
  ids: Float64Array;
  self: Float64Array;
  retained: Float64Array;
  /** Per node, its most telling retainer: `label.edge`, as an index into `labels`. */
  retainerOf: Int32Array;
}

export function loadHeap(file: string): Heap {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const meta = snapshot.snapshot.meta;
  const nodeFields: string[] = meta.node_fields;
  const edgeFields: string[] = meta.edge_fields;
  const nodeTypes: string[] = meta.node_types[0];
  const edgeTypes: string[] = meta.edge_types[0];
  const width = nodeFields.length;
  const edgeWidth = edgeFields.length;
  const [typeAt, nameAt, idAt, sizeAt, edgeCountAt] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((f) => nodeFields.indexOf(f));
  const [edgeTypeAt, edgeNameAt, edgeToAt] = ['type', 'name_or_index', 'to_node'].map((f) => edgeFields.indexOf(f));
  const nodes: number[] = snapshot.nodes;
  const edges: number[] = snapshot.edges;
  const strings: string[] = snapshot.strings;
  const count = nodes.length / width;
  const firstEdge = new Int32Array(count + 1);
  for (let i = 0, e = 0; i < count; i++) {
    firstEdge[i] = e;
    e += nodes[i * width + edgeCountAt];
    firstEdge[i + 1] = e;
  }
  const edgeCount = edges.length / edgeWidth;
  const edgeTo = new Int32Array(edgeCount);
  const edgeType = new Uint8Array(edgeCount);
  const edgeName = new Int32Array(edgeCount);
  for (let e = 0; e < edgeCount; e++) {
    edgeTo[e] = edges[e * edgeWidth + edgeToAt] / width;
    edgeType[e] = edges[e * edgeWidth + edgeTypeAt];
    edgeName[e] = edges[e * edgeWidth + edgeNameAt];
  }
  const WEAK = edgeTypes.indexOf('weak');
  const CONTEXT = edgeTypes.indexOf('context');
  const PROPERTY = edgeTypes.indexOf('property');
  const INTERNAL = edgeTypes.indexOf('internal');
  const SHORTCUT = edgeTypes.indexOf('shortcut');
  const nameless = new Set(['element', 'hidden'].map((t) => edgeTypes.indexOf(t)));
  const edgeLabel = (e: number) => (nameless.has(edgeType[e]) ? `[${edgeName[e]}]` : strings[edgeName[e]]);
  const type = (i: number) => nodeTypes[nodes[i * width + typeAt]];
  const name = (i: number) => strings[nodes[i * width + nameAt]];
  const edgeNamed = (i: number, wanted: string) => {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e++)
      if (!nameless.has(edgeType[e]) && strings[edgeName[e]] === wanted) return edgeTo[e];
    return -1;
  };

  // Closures' source locations: the snapshot lists them by node; the script's name is reached
  // through the closure's SharedFunctionInfo.
  const locations = new Map<number, string>();
  const locationFields: string[] = meta.location_fields ?? [];
  if (locationFields.length) {
    const [objectAt, scriptAt, lineAt, columnAt] = ['object_index', 'script_id', 'line', 'column'].map((f) => locationFields.indexOf(f));
    const raw: number[] = snapshot.locations ?? [];
    for (let l = 0; l < raw.length; l += locationFields.length) {
      const node = raw[l + objectAt] / width;
      locations.set(node, `${raw[l + scriptAt]}:${raw[l + lineAt] + 1}:${raw[l + columnAt] + 1}`);
    }
  }
  const scriptNames = new Map<number, string>();
  const scriptOf = (closure: number) => {
    const shared = edgeNamed(closure, 'shared');
    if (shared < 0) return '';
    const script = edgeNamed(shared, 'script');
    if (script < 0) return '';
    let known = scriptNames.get(script);
    if (known === undefined) {
      const source = edgeNamed(script, 'name');
      known = source >= 0 ? name(source).replace(/^.*\/(dist|node_modules)\//, '$1/') : '';
      scriptNames.set(script, known);
    }
    return known;
  };

  const labels: string[] = [];
  const labelIds = new Map<string, number>();
  const intern = (label: string) => {
    let id = labelIds.get(label);
    if (id === undefined) {
      id = labels.length;
      labels.push(label);
      labelIds.set(label, id);
    }
    return id;
  };
  const labelOf = new Int32Array(count);
  const ids = new Float64Array(count);
  const self = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    ids[i] = nodes[i * width + idAt];
    self[i] = nodes[i * width + sizeAt];
    const t = type(i);
    let label: string;
    if (t === 'object') {
      label = name(i);
      if (label === 'Object') {
        const props: string[] = [];
        for (let e = firstEdge[i]; e < firstEdge[i + 1] && props.length < 6; e++)
          if (edgeType[e] === PROPERTY) props.push(strings[edgeName[e]]);
        label = `Object{${props.join(',')}}`;
      }
    } else if (t === 'closure') {
      const where = locations.get(i)?.split(':') ?? [];
      label = `fn ${name(i) || '(anonymous)'} ${scriptOf(i)}:${where.slice(1).join(':')}`;
    } else if (t === 'hidden' && name(i) === 'system / Context') {
      const vars: string[] = [];
      for (let e = firstEdge[i]; e < firstEdge[i + 1] && vars.length < 8; e++) if (edgeType[e] === CONTEXT) vars.push(strings[edgeName[e]]);
      label = `Context(${vars.join(',')})`;
    } else if (t === 'array') {
      label = `array ${name(i)}`;
    } else if (t === 'string' || t === 'concatenated string' || t === 'sliced string') {
      label = 'string';
    } else if (t === 'code') {
      label = 'code';
    } else if (t === 'hidden' || t === 'native' || t === 'synthetic') {
      label = name(i);
    } else {
      label = t;
    }
    labelOf[i] = intern(label);
  }

  // Reverse edges (non-weak), for the dominators and the retainers.
  const predCount = new Int32Array(count + 1);
  for (let e = 0; e < edgeCount; e++) if (edgeType[e] !== WEAK && edgeType[e] !== SHORTCUT) predCount[edgeTo[e] + 1]++;
  for (let i = 0; i < count; i++) predCount[i + 1] += predCount[i];
  const predStart = predCount;
  const preds = new Int32Array(predStart[count]);
  const predEdge = new Int32Array(predStart[count]);
  const fill = predStart.slice(0, count);
  for (let i = 0; i < count; i++) {
    for (let e = firstEdge[i]; e < firstEdge[i + 1]; e++) {
      if (edgeType[e] === WEAK || edgeType[e] === SHORTCUT) continue;
      const to = edgeTo[e];
      preds[fill[to]] = i;
      predEdge[fill[to]] = e;
      fill[to]++;
    }
  }

  // Postorder from the root (node 0) over non-weak edges.
  const post = new Int32Array(count).fill(-1);
  const order = new Int32Array(count);
  const visited = new Uint8Array(count);
  const stack = new Int32Array(count);
  const cursor = new Int32Array(count);
  let sp = 0;
  let n = 0;
  stack[sp++] = 0;
  visited[0] = 1;
  cursor[0] = firstEdge[0];
  while (sp > 0) {
    const v = stack[sp - 1];
    let pushed = false;
    while (cursor[v] < firstEdge[v + 1]) {
      const e = cursor[v]++;
      if (edgeType[e] === WEAK || edgeType[e] === SHORTCUT) continue;
      const w = edgeTo[e];
      if (visited[w]) continue;
      visited[w] = 1;
      cursor[w] = firstEdge[w];
      stack[sp++] = w;
      pushed = true;
      break;
    }
    if (!pushed) {
      sp--;
      post[v] = n;
      order[n++] = v;
    }
  }
  // Immediate dominators, by postorder number.
  const idom = new Int32Array(n).fill(-1);
  const root = post[0];
  idom[root] = root;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (a < b) a = idom[a];
      while (b < a) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let p = n - 2; p >= 0; p--) {
      const v = order[p];
      let best = -1;
      for (let k = predStart[v]; k < predStart[v + 1]; k++) {
        const u = post[preds[k]];
        if (u < 0 || idom[u] < 0) continue;
        best = best < 0 ? u : intersect(u, best);
      }
      if (best >= 0 && idom[p] !== best) {
        idom[p] = best;
        changed = true;
      }
    }
  }
  const retained = new Float64Array(count);
  for (let p = 0; p < n; p++) retained[order[p]] += self[order[p]];
  for (let p = 0; p < n - 1; p++) if (idom[p] >= 0 && idom[p] !== p) retained[order[idom[p]]] += retained[order[p]];

  // The retainer to name: the first strong, non-internal edge, or the first strong one.
  const retainerOf = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    let chosen = -1;
    for (let k = predStart[i]; k < predStart[i + 1]; k++) {
      if (chosen < 0) chosen = k;
      if (edgeType[predEdge[k]] !== INTERNAL) {
        chosen = k;
        break;
      }
    }
    if (chosen >= 0) retainerOf[i] = intern(`${labels[labelOf[preds[chosen]]]} .${edgeLabel(predEdge[chosen])}`);
  }
  return { count, labels, labelOf, ids, self, retained, retainerOf };
}

export interface Row {
  label: string;
  /** Objects added per unit (net of those freed), and their self bytes per unit. */
  count: number;
  bytes: number;
  /** Mean retained size of one added object of the label. */
  retainedEach: number;
  /** The commonest retainers of the added objects, with their share. */
  retainers: string;
}

/**
 * What `after` holds that `before` did not, per unit: objects whose id is new, minus objects freed,
 * grouped by label, largest first. Retained sizes and retainers are those of the added objects.
 */
export function diffHeaps(before: Heap, after: Heap, units: number): { total: number; rows: Row[] } {
  const beforeIds = new Set<number>();
  for (let i = 0; i < before.count; i++) beforeIds.add(before.ids[i]);
  const afterIds = new Set<number>();
  for (let i = 0; i < after.count; i++) afterIds.add(after.ids[i]);
  const groups = new Map<string, { count: number; bytes: number; retained: number; added: number; retainers: Map<string, number> }>();
  const group = (label: string) => {
    let g = groups.get(label);
    if (!g) groups.set(label, (g = { count: 0, bytes: 0, retained: 0, added: 0, retainers: new Map() }));
    return g;
  };
  let total = 0;
  for (let i = 0; i < after.count; i++) {
    if (beforeIds.has(after.ids[i])) continue;
    const g = group(after.labels[after.labelOf[i]]);
    g.count++;
    g.added++;
    g.bytes += after.self[i];
    g.retained += after.retained[i];
    total += after.self[i];
    const r = after.retainerOf[i] >= 0 ? after.labels[after.retainerOf[i]] : '(none)';
    g.retainers.set(r, (g.retainers.get(r) ?? 0) + 1);
  }
  for (let i = 0; i < before.count; i++) {
    if (afterIds.has(before.ids[i])) continue;
    const g = group(before.labels[before.labelOf[i]]);
    g.count--;
    g.bytes -= before.self[i];
    total -= before.self[i];
  }
  const rows = [...groups.entries()]
    .map(([label, g]) => ({
      label,
      count: g.count / units,
      bytes: g.bytes / units,
      retainedEach: g.added ? g.retained / g.added : 0,
      retainers: [...g.retainers.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 2)
        .map(([r, c]) => `${r} (${Math.round((100 * c) / g.added)} %)`)
        .join('; '),
    }))
    .sort((a, b) => b.bytes - a.bytes);
  return { total: total / units, rows };
}

/** A diff as a markdown table of its rows above `minBytes` per unit. */
export function diffTable(title: string, diff: { total: number; rows: Row[] }, minBytes = 8): string {
  const lines = [
    `### ${title}: ${diff.total.toFixed(0)} B of JS heap each (net, self sizes)`,
    '',
    '| B each | objects each | retained each (B) | what | retained by |',
    '|---:|---:|---:|---|---|',
  ];
  for (const r of diff.rows) {
    if (Math.abs(r.bytes) < minBytes) continue;
    const cell = (s: string) => s.replace(/\|/g, '\\|').slice(0, 160);
    lines.push(
      `| ${r.bytes.toFixed(0)} | ${r.count.toFixed(2)} | ${r.retainedEach.toFixed(0)} | ${cell(r.label)} | ${cell(r.retainers)} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
