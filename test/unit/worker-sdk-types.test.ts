import '../../src/pipelines/pipelines.kinds';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { typedModule, typeName } from '../../sdk/typescript/src/typegen';
import { kindViews } from '../../src/job/job.kinds';
import { blocksOf } from '../support/doc-blocks';
import { tempDir } from '../support/fixtures';
import { ROOT } from '../support/processes';

/*
 * The TypeScript SDK's typed kinds: the module `artissist-worker types` writes for the declared
 * kinds (src/job/job.kinds.ts, derived here as jobKinds derives them; test/e2e/worker-sdk.test.ts
 * checks that the command writes the same over HTTP) compiles, and with it tsc accepts the typed
 * worker docs/workers.md shows and the untyped hello-world, and rejects handlers that break their
 * stage's declaration. One tsc program for all of it, in this process (about 3 s of a core).
 */

/** Handlers that keep to the declarations beside those the docs show: tsc says nothing of them. */
const RIGHT = [
  "import { Worker } from '@artissist/worker';",
  "import type { Kinds } from './kinds.js';",
  "const worker = new Worker<Kinds>({ url: 'http://127.0.0.1:1/graphql', token: 't' });",
  // A stage without required outputs may return nothing; an optional input may be absent.
  "worker.stage('3D_CHARACTER', 'rig', () => {}).stage('3D_CHARACTER', 'anim', async () => {});",
  "worker.stage('3D_CHARACTER', 'export', async (work) => ({ model: work.inputs.referenceImage ?? work.inputs.prompt, format: null }));",
  "worker.stage('PHOTO_EDIT', 'analyze', (work) => ({ analysisResult: { size: work.inputs.fileSize + 1 } }));",
  // Untyped, any kind and stage, returning anything or nothing.
  "new Worker({ url: '', token: '' }).stage('FREE', 'form', async (work) => ({ echo: work.inputs.anything })).stage('FREE', 'none', () => {});",
];

/** Handlers that break the declarations, one a line, each with the diagnostic tsc must give it (its code and a piece of its text). */
const WRONG: [string, number, string][] = [
  ["worker.stage('MUSIC_VIDEO', 'render-scenes', async () => ({ lipSyncedClip: 'k' }));", 2322, "'videoClip' is missing"],
  [
    "worker.stage('MUSIC_VIDEO', 'render-scenes', (work) => ({ videoClip: work.attempt }));",
    2322,
    "'number' is not assignable to type 'string'",
  ],
  ["worker.stage('MUSIC_VIDEO', 'compose', async () => {});", 2345, "'void' is not assignable to type 'MusicVideoComposeOutputs'"],
  ["worker.stage('MUSIC_VIDEO', 'render', async () => ({ videoClip: 'k' }));", 2345, 'Argument of type \'"render"\''],
  ["worker.stage('MUSIC', 'compose', async () => ({ video: 'k' }));", 2345, 'Argument of type \'"MUSIC"\''],
  ["worker.stage('BATCH', 'process', async (work) => ({ result: work.inputs.sorce }));", 2551, "'sorce' does not exist"],
  ["worker.stage('3D_CHARACTER', 'rig', () => ({ rig: 'k' }));", 2322, "not assignable to type 'never'"],
  [
    "worker.stage('BATCH', 'process', async (work): Promise<BatchProcessOutputs> => ({ result: work.inputs.source, extra: 1 }));",
    2353,
    "'extra' does not exist in type 'BatchProcessOutputs'",
  ],
  // The same without the annotation: beyond TypeScript's excess-property check, held by the SDK's Exact.
  [
    "worker.stage('BATCH', 'process', async (work) => ({ result: work.inputs.source, extra: 1 }));",
    2322,
    "'number' is not assignable to type 'never'",
  ],
];

describe('the TypeScript SDK typed by the declared kinds', () => {
  it('names types as the Python SDK does', () => {
    expect(typeName('MUSIC_VIDEO', 'render-scenes', 'Outputs')).toBe('MusicVideoRenderScenesOutputs');
    expect(typeName('3D_CHARACTER', 'text-to-image', 'Inputs')).toBe('K3dCharacterTextToImageInputs');
  });

  it("writes a module that compiles, with which tsc accepts the docs' workers and rejects each handler that breaks its stage's declaration", () => {
    const folder = tempDir('artissist-worker-types-');
    // The package as `npm install <checkout>/sdk/typescript` links it.
    mkdirSync(join(folder, 'node_modules/@artissist'), { recursive: true });
    symlinkSync(join(ROOT, 'sdk/typescript'), join(folder, 'node_modules/@artissist/worker'));
    writeFileSync(join(folder, 'kinds.ts'), typedModule(kindViews()));
    const docs = blocksOf('docs/workers.md').filter((b) => b.lang === 'ts');
    const typed = docs.find((b) => b.text.includes('new Worker<Kinds>'));
    const hello = docs.find((b) => b.text.includes('new Worker({'));
    writeFileSync(join(folder, 'typed.mts'), typed?.text ?? '');
    writeFileSync(join(folder, 'hello.mts'), hello?.text ?? '');
    writeFileSync(join(folder, 'right.mts'), `${RIGHT.join('\n')}\n`);
    const wrong = [
      "import { Worker } from '@artissist/worker';",
      "import type { BatchProcessOutputs, Kinds } from './kinds.js';",
      "const worker = new Worker<Kinds>({ url: 'http://127.0.0.1:1/graphql', token: 't' });",
      ...WRONG.map(([line]) => line),
    ];
    writeFileSync(join(folder, 'wrong.mts'), `${wrong.join('\n')}\n`);

    // As the docs' reader runs tsc on a worker (test/e2e/worker-sdk.test.ts's flags): strict, Node's ESM.
    const files = ['kinds.ts', 'typed.mts', 'hello.mts', 'right.mts', 'wrong.mts'].map((name) => join(folder, name));
    const program = ts.createProgram(files, {
      noEmit: true,
      strict: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      skipLibCheck: true,
    });
    // These files' diagnostics only: the SDK's own sources are npm run typecheck's, and checking them again here would double the cost.
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getGlobalDiagnostics(),
      ...files.flatMap((file) => {
        const source = program.getSourceFile(file);
        return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
      }),
    ];
    const found = diagnostics.map((d) => ({
      file: d.file ? d.file.fileName.slice(folder.length + 1) : '(options)',
      line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
      code: d.code,
      text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    }));
    // The docs' blocks were found, and give nothing to say; the module of the declared kinds neither.
    expect([typed?.line, hello?.line]).toEqual([expect.any(Number), expect.any(Number)]);
    expect(found.filter((d) => d.file !== 'wrong.mts')).toEqual([]);
    // Each wrong handler, one diagnostic on its own line: what it breaks.
    const header = wrong.length - WRONG.length;
    expect(found.filter((d) => d.file === 'wrong.mts')).toEqual(
      WRONG.map(([, code, text], i) => ({ file: 'wrong.mts', line: header + i + 1, code, text: expect.stringContaining(text) })),
    );
  });
});
