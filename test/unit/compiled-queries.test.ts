import { buildSchema, execute, GraphQLError, GraphQLScalarType, isObjectType, parse, validate, type ExecutionResult } from 'graphql';
import { CompiledQueries } from '../../src/graphql/compiled-queries';

/*
 * Compiled queries (src/graphql/compiled-queries.ts) must answer exactly as graphql-js does,
 * errors included. Each query below runs on graphql-js and compiled (a part that compiles on the
 * first run), and the two results must be equal as JSON, error by error, with the same original
 * errors and extensions. The schema is built to reach the corners where an executor could
 * differ: resolver errors (thrown, rejected, GraphQLErrors with extensions), null bubbling
 * through non-null fields and lists, abstract types (resolveType, isTypeOf, wrong and missing
 * types), leaf serialization errors, and variables that fail coercion.
 */
const schema = buildSchema(`
  interface Named { name: String! }
  type Person implements Named { name: String! age: Int }
  type Robot implements Named { name: String! model: String }
  union Thing = Person | Robot
  enum Mood { HAPPY SAD }
  scalar Odd
  input Filter { min: Int! = 0, names: [String!] }
  type Item { id: ID! label: String! note: String }
  type Query {
    hello(name: String = "world"): String!
    items(first: Int!, filter: Filter): [Item!]!
    nullableItems: [Item]
    strictItems: [Item!]
    failing: String
    failingCoded: String
    failingAsync: String
    nullForNonNull: String!
    deep: Deep
    named: [Named!]!
    things: [Thing]
    wrongType: Named
    noType: Thing
    mood(m: Mood): Mood
    badMood: Mood
    odd: Odd
    badOdd: Odd
    bigInt: Int
    floatAsInt: Int
    notAList: [String]
    echo(list: [Int!]!, text: String): String
    boxed: Box
  }
  type Box { label: String! named: Named }
  type Deep { inner: Inner! other: String }
  type Inner { value: String! }
`);

class CodedError extends GraphQLError {
  constructor() {
    super('Not yours.', { extensions: { code: 'FORBIDDEN', detail: { reason: 'tenant' } } });
  }
}

const items = Array.from({ length: 5 }, (_, i) => ({ id: `i${i}`, label: i === 3 ? null : `L${i}`, note: i % 2 ? 'n' : null }));
Object.assign(schema.getType('Named')!, {
  resolveType: (value: { kind: string }) => (value.kind === 'none' ? undefined : value.kind),
});
Object.assign(schema.getType('Person')!, { isTypeOf: (value: { kind: string }) => value.kind === 'Person' });
Object.assign(schema.getType('Robot')!, { isTypeOf: (value: { kind: string }) => value.kind === 'Robot' });
const odd = schema.getType('Odd');
if (!(odd instanceof GraphQLScalarType)) throw new Error('Odd is a scalar');
odd.serialize = (value: unknown) => {
  if (typeof value !== 'number' || value % 2 === 0) throw new TypeError(`Odd cannot represent ${String(value)}`);
  return value;
};

const resolvers: Record<string, (args: any) => unknown> = {
  hello: ({ name }: { name: string }) => `hello ${name}`,
  items: ({ first, filter }: { first: number; filter?: { min: number } }) => items.slice(filter?.min ?? 0, first),
  nullableItems: () => [items[0], null, items[3], items[1]],
  strictItems: () => [items[0], items[3]],
  failing: () => {
    throw new Error('Something broke.');
  },
  failingCoded: () => {
    throw new CodedError();
  },
  failingAsync: async () => {
    throw new CodedError();
  },
  nullForNonNull: () => null,
  deep: async () => ({ inner: { value: null }, other: 'o' }),
  named: () => [
    { kind: 'Person', name: 'Ada', age: 36 },
    { kind: 'Robot', name: 'R2', model: 'astromech' },
  ],
  things: () => [{ kind: 'Person', name: 'Ada', age: 36 }, { kind: 'Robot', name: 'R2', model: 'x' }, null, { kind: 'Cat', name: 'Tom' }],
  wrongType: () => ({ kind: 'Item', name: 'x' }),
  noType: () => ({ kind: 'Nothing', name: 'x' }),
  mood: ({ m }: { m?: string }) => m ?? null,
  badMood: () => 'ANGRY',
  odd: () => 3,
  badOdd: () => 4,
  bigInt: () => 2 ** 40,
  floatAsInt: () => 1.5,
  notAList: () => 'abc',
  echo: ({ list, text }: { list: number[]; text?: string }) => `${list.join(',')}${text ?? ''}`,
  // Plain properties that hold promises, as our pages' cursors and search's entities do.
  boxed: () => ({ label: Promise.resolve('boxed'), named: Promise.resolve({ kind: 'Robot', name: 'R2' }) }),
};

// graphql-jit calls resolvers, not functions found on the root value (graphql-js's default
// resolver calls those too): each Query field gets its function as its resolver, as
// type-graphql gives every root field one.
const queryFields = schema.getQueryType()!.getFields();
for (const [name, resolve] of Object.entries(resolvers)) queryFields[name].resolve = (_root, args) => resolve(args);
const deepFields = schema.getTypeMap().Deep;
if (!isObjectType(deepFields)) throw new Error('Deep is an object type');
deepFields.getFields().inner.resolve = async (deep: { inner: unknown }) => deep.inner;
const rootValue = undefined;

/** A result as JSON, with what formatError reads besides: each error's original error and class. */
function comparable(result: ExecutionResult) {
  return JSON.stringify({
    data: result.data,
    errors: result.errors?.map((e) => ({
      json: e.toJSON(),
      isGraphQLError: e instanceof GraphQLError,
      original: e.originalError ? { name: e.originalError.name, message: e.originalError.message } : null,
      originalIsCoded: e.originalError instanceof CodedError,
    })),
    extensions: result.extensions,
  });
}

const cases: Array<[string, string, Record<string, unknown>?]> = [
  ['a default argument and aliases', '{ hello a: hello(name: "x") __typename }'],
  [
    'a list of objects with fragments and directives',
    'query Q($skip: Boolean!) { items(first: 3) { ...F note @skip(if: $skip) } } fragment F on Item { id }',
    { skip: true },
  ],
  ['an input object with a default field', 'query Q($f: Filter) { items(first: 5, filter: $f) { id } }', { f: { names: ['a'] } }],
  ['null bubbling to a nullable list item', '{ nullableItems { id label } }'],
  ['null bubbling through a non-null list to the field', '{ strictItems { id label } }'],
  ['null bubbling to the root', '{ items(first: 5) { label } hello }'],
  ['a non-null field resolving null', '{ nullForNonNull hello }'],
  ['a thrown error', '{ failing hello }'],
  ['a GraphQLError with extensions', '{ failingCoded }'],
  ['a rejected promise', '{ failingAsync a: failingAsync }'],
  ['null bubbling through async fields', '{ deep { other inner { value } } }'],
  ['an interface resolved by resolveType', '{ named { __typename name ... on Person { age } ... on Robot { model } } }'],
  ['a union resolved by isTypeOf, with a null and an unknown kind', '{ things { __typename ... on Named { name } } }'],
  ['resolveType naming a type that is not possible', '{ wrongType { name } }'],
  ['an abstract type no type claims', '{ noType { __typename } }'],
  ['an enum in and out', 'query Q($m: Mood) { mood(m: $m) }', { m: 'SAD' }],
  ['an enum value the enum does not have', '{ badMood }'],
  ['a custom scalar', '{ odd }'],
  ['a custom scalar that refuses its value', '{ badOdd odd }'],
  ['an Int out of range', '{ bigInt }'],
  ['a float as an Int', '{ floatAsInt }'],
  ['a list field resolving to no list', '{ notAList }'],
  ['a list variable coerced from one value', 'query Q($l: [Int!]!) { echo(list: $l) }', { l: 7 }],
  ['a missing required variable', 'query Q($l: [Int!]!) { echo(list: $l) }', {}],
  ['a variable of the wrong type', 'query Q($l: [Int!]!, $t: String) { echo(list: $l, text: $t) }', { l: ['x'], t: 5 }],
  ['an input object with an unknown field', 'query Q($f: Filter) { items(first: 5, filter: $f) { id } }', { f: { min: 1, nope: 2 } }],
  [
    'an input object missing a required field given null',
    'query Q($f: Filter) { items(first: 5, filter: $f) { id } }',
    { f: { min: null } },
  ],
];

/**
 * The cases whose results the compiled query gives itself: no errors, or only errors resolvers
 * threw. The others hold errors graphql-jit makes (and words) itself, which graphql-js answers;
 * among them an input object's field default, which graphql-jit's variable coercion does not
 * apply (it refuses the variables before any resolver runs).
 */
const answeredCompiled = new Set([
  'a default argument and aliases',
  'a list of objects with fragments and directives',
  'a thrown error',
  'a GraphQLError with extensions',
  'a rejected promise',
  'an interface resolved by resolveType',
  'an enum in and out',
  'a custom scalar',
  'a list variable coerced from one value',
]);

describe('compiled queries answer exactly as graphql-js does', () => {
  const compiled = new CompiledQueries(schema, 0);

  // Every row has its variables (jest would pass `done` in the place of a missing last argument).
  it.each(cases.map(([name, query, variables]) => [name, query, variables ?? {}] as const))('%s', async (name, query, variableValues) => {
    const document = parse(query);
    expect(validate(schema, document)).toEqual([]);
    const args = { schema, document, rootValue, variableValues };
    const expected = comparable(await execute(args));
    const { runs, rerun } = compiled.counts;
    const actual = comparable(await compiled.execute(args));
    // The compiled query ran (this is not graphql-js compared with itself), whether or not its
    // result then went back to graphql-js (errors graphql-jit words its own way).
    expect(compiled.counts.runs).toBe(runs + 1);
    expect(compiled.counts.rerun).toBe(answeredCompiled.has(name) ? rerun : rerun + 1);
    expect(actual).toBe(expected);
  });

  it('runs a query on graphql-js for good once graphql-js had to answer for its compiled query', async () => {
    const part = new CompiledQueries(schema, 0);
    const args = { schema, document: parse('{ boxed { label } }'), rootValue };
    const expected = await execute(args);
    expect(await part.execute(args)).toEqual(expected);
    expect(part.counts).toEqual({ compiled: 1, runs: 1, uncompilable: 0, rerun: 1 });
    expect(await part.execute(args)).toEqual(expected);
    expect(part.counts).toEqual({ compiled: 1, runs: 1, uncompilable: 0, rerun: 1 });
  });

  it('runs a query on graphql-js until it has run once, then compiled', async () => {
    const part = new CompiledQueries(schema);
    const args = { schema, document: parse('{ hello }'), rootValue };
    await part.execute(args);
    expect(part.counts).toEqual({ compiled: 0, runs: 0, uncompilable: 0, rerun: 0 });
    expect(await part.execute(args)).toEqual(await execute(args));
    expect(part.counts).toEqual({ compiled: 1, runs: 1, uncompilable: 0, rerun: 0 });
  });

  it('leaves mutations and other schemas to graphql-js', async () => {
    const withMutation = buildSchema('type Query { a: Int } type Mutation { set(v: Int!): Int }');
    const part = new CompiledQueries(withMutation, 0);
    withMutation.getMutationType()!.getFields().set.resolve = (_root, { v }) => v;
    const mutation = { schema: withMutation, document: parse('mutation { set(v: 2) }') };
    expect(await part.execute(mutation)).toEqual({ data: { set: 2 } });
    expect(await part.execute({ schema, document: parse('{ hello }'), rootValue })).toEqual({ data: { hello: 'hello world' } });
    expect(part.counts.runs).toBe(0);
  });
});
