import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { preProcessFile } from 'typescript';

/**
 * The layers of src/, lowest first. A module may import its own layer and the layers below it;
 * an import of a higher layer makes the lower code depend on what is built on top of it, so a
 * change at the top can break the bottom. Paths are relative to src/; a path ending in `/` is a
 * folder.
 *
 * - base: the error codes, the logger, the configuration and the guards that read values of
 *   unknown type (guards.ts), which everything uses.
 * - infra: DynamoDB, S3, pub/sub, metrics and supervision; it knows nothing of the domain.
 * - common: what every feature shares: ids, keys, validation, the scope a repository works in,
 *   the caller (auth), the upload service and the request's Context type. Features build on it.
 * - features: one folder per entity (type, inputs, keys, repository, resolver), every folder that
 *   no other layer names. A feature may use another feature (an asset links a log; every project
 *   child uses the project).
 * - events: publishing committed events and live subscriptions, built on the features' events.
 * - api: the GraphQL API put together from the list of features: the schema from their resolvers,
 *   and the wiring that builds a request's repositories (the composition root of a request).
 * - pipeline: the GraphQL operation pipeline (documents, limits, context, errors, records) that
 *   every transport runs; like graphql-ws's protocol, it knows no socket and no HTTP.
 * - transport: HTTP and WebSocket, which carry operations to the pipeline.
 * - app: starts and stops the parts of one server.
 * - entry: what a person runs (main, scripts, the demo) and the generated client.
 */
export const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: 'base', paths: ['errors.ts', 'logger.ts', 'config.ts', 'guards.ts'] },
  { name: 'infra', paths: ['infra/'] },
  { name: 'common', paths: ['common/', 'auth/', 'context.ts'] },
  // Every other folder is a feature, so a new entity's folder needs no entry here.
  { name: 'features', paths: ['*/'] },
  { name: 'events', paths: ['events/'] },
  { name: 'api', paths: ['schema.ts', 'wiring.ts', 'features.ts'] },
  { name: 'pipeline', paths: ['graphql/'] },
  { name: 'transport', paths: ['http/'] },
  { name: 'app', paths: ['app.ts'] },
  { name: 'entry', paths: ['main.ts', 'demo/', 'scripts/', 'client/'] },
];

export interface UpwardImport {
  /** The importing file, relative to src/ (with `/` separators). */
  from: string;
  fromLayer: string;
  /** The imported file, relative to src/. */
  to: string;
  toLayer: string;
}

/** The layer of a file (relative to src/), or undefined when no layer lists it. */
export function layerOf(file: string): number | undefined {
  const index = LAYERS.findIndex(({ paths }) => paths.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p)));
  if (index !== -1) return index;
  // A folder no layer names is a feature (the `*/` entry).
  const rest = LAYERS.findIndex(({ paths }) => paths.includes('*/'));
  return file.includes('/') && rest !== -1 ? rest : undefined;
}

/** Every .ts file under a folder, relative to it, with `/` separators. */
export function sourceFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
    });
  return walk(root)
    .map((path) => relative(root, path).split(sep).join('/'))
    .sort();
}

/**
 * Every module a file names, as written: packages by name (`type-graphql`), files by relative
 * path. TypeScript's own pre-processor reads them, so `import type`, `export … from`, `import()`,
 * `require()` and a module augmentation (`declare module '../context'`) all count: a type-only
 * import ties the two modules together as much as any other for a reader and a reviewer.
 */
export function importedNames(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return preProcessFile(text, true, true).importedFiles.map((ref) => ref.fileName);
}

/** The relative imports of a file (see importedNames), resolved to files under src/. */
export function importsOf(root: string, file: string): string[] {
  return importedNames(root, file)
    .filter((name) => name.startsWith('.'))
    .map((name) =>
      relative(root, resolve(dirname(join(root, file)), name))
        .split(sep)
        .join('/'),
    )
    .map((target) => (target.endsWith('.ts') ? target : `${target}.ts`));
}

/**
 * Checks the layering of the files under `root` (src/): every import that runs from a lower
 * layer to a higher one, one entry per import statement, and every file no layer lists.
 */
export function checkLayers(root: string): { upward: UpwardImport[]; unassigned: string[] } {
  const upward: UpwardImport[] = [];
  const unassigned: string[] = [];
  for (const from of sourceFiles(root)) {
    const fromLayer = layerOf(from);
    if (fromLayer === undefined) {
      unassigned.push(from);
      continue;
    }
    for (const to of importsOf(root, from)) {
      const toLayer = layerOf(to);
      if (toLayer !== undefined && toLayer > fromLayer)
        upward.push({ from, fromLayer: LAYERS[fromLayer].name, to, toLayer: LAYERS[toLayer].name });
    }
  }
  return { upward, unassigned };
}

/** The room of a file (relative to src/): its top folder (`job/`), or the file itself when it stands in src/ (`context.ts`). */
function roomOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash + 1);
}

/** Rooms that import each other in a loop, with the imports (`from → to`) between them that tie the loop. */
export interface FolderCircle {
  rooms: string[];
  imports: string[];
}

/**
 * The circles among the rooms of `root` (src/): its folders and the files that stand in it, each
 * one node, tied by every import between two of them (a type-only import and a module
 * augmentation count). Within a circle no room can be understood, tested or moved without the
 * others, even where each file on its own lies in its layer. Sorted, so a test can compare them.
 */
export function folderCircles(root: string): FolderCircle[] {
  const edges = new Map<string, Map<string, string[]>>();
  for (const from of sourceFiles(root)) {
    for (const to of importsOf(root, from)) {
      const [a, b] = [roomOf(from), roomOf(to)];
      if (a === b) continue;
      const out = edges.get(a) ?? new Map<string, string[]>();
      out.set(b, [...(out.get(b) ?? []), `${from} → ${to}`]);
      edges.set(a, out);
    }
  }
  // Tarjan's strongly connected components over the rooms.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: FolderCircle[] = [];
  const visit = (room: string): void => {
    index.set(room, index.size);
    low.set(room, index.get(room) ?? 0);
    stack.push(room);
    for (const next of edges.get(room)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(room, Math.min(low.get(room) ?? 0, low.get(next) ?? 0));
      } else if (stack.includes(next)) low.set(room, Math.min(low.get(room) ?? 0, index.get(next) ?? 0));
    }
    if (low.get(room) !== index.get(room)) return;
    const members = stack.splice(stack.indexOf(room)).sort();
    if (members.length < 2) return;
    const imports = members.flatMap((a) => members.flatMap((b) => edges.get(a)?.get(b) ?? []));
    circles.push({ rooms: members, imports: imports.sort() });
  };
  for (const room of [...edges.keys()].sort()) if (!index.has(room)) visit(room);
  return circles.sort((x, y) => x.rooms[0].localeCompare(y.rooms[0]));
}

/** `node dist/src/scripts/layers.js [src folder]` prints the imports that run up the layers. */
if (require.main === module) {
  const root = resolve(process.argv[2] ?? join(__dirname, '../../../src'));
  const { upward, unassigned } = checkLayers(root);
  for (const u of upward) console.log(`${u.from} (${u.fromLayer}) → ${u.to} (${u.toLayer})`);
  for (const file of unassigned) console.log(`${file}: in no layer`);
  console.log(`${upward.length} imports run up the layers.`);
  for (const circle of folderCircles(root)) console.log(`circle ${circle.rooms.join(' ⇄ ')}: ${circle.imports.join(', ')}`);
}
