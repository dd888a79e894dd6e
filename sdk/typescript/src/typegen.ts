/*
 * Typed inputs and outputs from the declared kinds, as the Python SDK's typegen.py writes them:
 * `artissist-worker types` (cli.ts) reads the server's jobKinds and writes a TypeScript module with
 * one `<Kind><Stage>Inputs` (what a handler's work.inputs holds) and one `<Kind><Stage>Outputs`
 * (what it returns) a stage, and `Kinds`, the map a `Worker<Kinds>` takes (see index.ts).
 */

/** What the generator and the worker read of the declared kinds: every field's name, type and whether it is required. */
export const JOB_KINDS_QUERY = `query WorkerJobKinds { jobKinds { name inputs { name type required } stages { name outputs { name type required }
  fanOut { itemInputs { name type required } itemOutputs { name type required } } } } }`;

/** One declared field (the API's JobField). */
export interface DeclaredField {
  name: string;
  /** string, id, int, float, boolean, date, dateTime, json, strings or enum. */
  type: string;
  required: boolean;
}

/** A declared kind as jobKinds answers JOB_KINDS_QUERY (the server's kindViews() has this shape too). */
export interface DeclaredKind {
  name: string;
  inputs: DeclaredField[];
  stages: { name: string; outputs: DeclaredField[]; fanOut?: { itemInputs: DeclaredField[]; itemOutputs: DeclaredField[] } | null }[];
}

/** The declared field types (JobField.type) as TypeScript types; a type the generator does not know is `unknown`. */
const TS_TYPES: Record<string, string> = {
  string: 'string',
  id: 'string',
  int: 'number',
  float: 'number',
  boolean: 'boolean',
  date: 'string',
  dateTime: 'string',
  json: 'unknown',
  strings: 'string[]',
  enum: 'string',
};

/** A type name from a kind and a stage: MUSIC_VIDEO, render-scenes, Outputs → MusicVideoRenderScenesOutputs (K3dCharacter… for a digit). */
export function typeName(kind: string, stage: string, suffix: string): string {
  const words = `${kind} ${stage}`.split(/[^0-9A-Za-z]+/).filter(Boolean);
  const name = words.map((w) => w.slice(0, 1).toUpperCase() + w.slice(1).toLowerCase()).join('') + suffix;
  return /^[A-Za-z]/.test(name) ? name : `K${name}`;
}

/** A property name as written in a type: bare when it is an identifier, quoted otherwise. */
const property = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

/**
 * An object type of `fields`: required ones required, the others optional. An output that is not
 * required may also be null (the server takes null as not given); a stage with no fields takes none.
 */
function objectType(fields: DeclaredField[], outputs: boolean): string {
  if (fields.length === 0) return 'Record<string, never>';
  const lines = fields.map((f) => {
    const type = TS_TYPES[f.type] ?? 'unknown';
    return f.required
      ? `  ${property(f.name)}: ${type};`
      : `  ${property(f.name)}?: ${type}${outputs && type !== 'unknown' ? ' | null' : ''};`;
  });
  return `{\n${lines.join('\n')}\n}`;
}

/**
 * The source of a module declaring each declared stage's inputs and outputs, and `Kinds`, the map
 * from kind to stage to both. Type aliases, not interfaces, so that each is a Record<string, unknown>
 * as the SDK's untyped handlers take. Throws when two stages' names make the same type name.
 */
export function typedModule(kinds: DeclaredKind[]): string {
  const parts = [
    "// The declared kinds' inputs and outputs, written by `artissist-worker types` from the server's jobKinds.",
    '// Pass Kinds to the worker (new Worker<Kinds>(…)) to have each handler checked against its stage.',
  ];
  const map: string[] = [];
  const names = new Set<string>();
  for (const kind of kinds) {
    map.push(`  ${property(kind.name)}: {`);
    for (const stage of kind.stages) {
      // A step's handler gets the job's inputs; an item's, the item's.
      const inputs = stage.fanOut ? stage.fanOut.itemInputs : kind.inputs;
      const outputs = stage.fanOut ? stage.fanOut.itemOutputs : stage.outputs;
      const [inputsName, outputsName] = ['Inputs', 'Outputs'].map((suffix) => typeName(kind.name, stage.name, suffix));
      if (names.has(inputsName)) throw new Error(`${kind.name}/${stage.name} makes the type name ${inputsName} a second time.`);
      names.add(inputsName);
      parts.push('', `export type ${inputsName} = ${objectType(inputs, false)};`);
      parts.push('', `export type ${outputsName} = ${objectType(outputs, true)};`);
      map.push(`    ${property(stage.name)}: { inputs: ${inputsName}; outputs: ${outputsName} };`);
    }
    map.push('  };');
  }
  parts.push('', '/** Each declared kind and stage: what its handler gets and returns. */', `export type Kinds = {\n${map.join('\n')}\n};`);
  return `${parts.join('\n')}\n`;
}
