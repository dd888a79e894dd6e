import { checkJsonInput, checkVariables, JSON_INPUT_LIMITS, VARIABLES_MAX_DEPTH } from '../../src/common/json-limits';
import { boundedJson } from '../../src/common/validate';

/** A value nested `depth` levels deep, built with a loop (no recursion anywhere). */
function nested(depth: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 1; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** A small pseudo-random JSON value; the same seed gives the same value. */
function randomJson(seed: number): unknown {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const make = (depth: number): unknown => {
    const pick = next();
    if (depth > 4 || pick < 0.3) {
      const leaves = [null, true, false, 0, -1.5, 1e21, 42, '', 'plain', 'é ü 日本 🎨', 'quote " and \\ and \n'];
      return leaves[Math.floor(next() * leaves.length)];
    }
    if (pick < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => make(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(next() * 4) }, (_, i) => [`k${i}${next() < 0.2 ? '"ü' : ''}`, make(depth + 1)]),
    );
  };
  return make(0);
}

describe('checkJsonInput', () => {
  it('measures exactly the bytes JSON.stringify writes', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const value = randomJson(seed);
      const bytes = Buffer.byteLength(JSON.stringify(value));
      expect({ seed, result: checkJsonInput(value, { maxBytes: bytes }) }).toEqual({ seed, result: null });
      expect({ seed, result: checkJsonInput(value, { maxBytes: bytes - 1 }) }).toEqual({
        seed,
        result: { reason: 'JSON_TOO_LARGE', limit: bytes - 1 },
      });
    }
  });

  it('counts objects and arrays as levels, not scalars', () => {
    expect(checkJsonInput('text', { maxDepth: 0 })).toBeNull();
    expect(checkJsonInput({}, { maxDepth: 1 })).toBeNull();
    expect(checkJsonInput({ a: [1, { b: 2 }] }, { maxDepth: 3 })).toBeNull();
    expect(checkJsonInput({ a: [1, { b: 2 }] }, { maxDepth: 2 })).toEqual({ reason: 'JSON_TOO_DEEP', limit: 2 });
    expect(checkJsonInput(nested(16), { maxDepth: 16 })).toBeNull();
    expect(checkJsonInput(nested(17), { maxDepth: 16 })).toEqual({ reason: 'JSON_TOO_DEEP', limit: 16 });
  });

  it('walks a value nested a million levels deep without overflowing the stack', () => {
    const deep = nested(1_000_000);
    expect(checkJsonInput(deep, { maxDepth: 16 })).toEqual({ reason: 'JSON_TOO_DEEP', limit: 16 });
    // With no depth limit it still walks to the bottom, in a loop.
    expect(checkJsonInput(deep, {})).toBeNull();
  });

  it('refuses a huge array without reading its entries', () => {
    // A sparse array seen through a proxy that counts how many entries are read.
    let reads = 0;
    const huge = new Proxy(new Array(10_000_000), {
      get(target, property, receiver) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property, receiver);
      },
    });
    expect(checkJsonInput(huge, { maxBytes: 1000 })).toEqual({ reason: 'JSON_TOO_LARGE', limit: 1000 });
    expect(reads).toBe(0);
  });

  it('reports a cycle as too deep instead of looping forever', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(checkJsonInput(cyclic, { maxDepth: 16 })).toEqual({ reason: 'JSON_TOO_DEEP', limit: 16 });
  });
});

describe('checkVariables', () => {
  it('names the first variable nested deeper than the absurd limit', () => {
    expect(checkVariables({ ok: nested(20), alsoOk: 'x' })).toBeNull();
    expect(checkVariables({ ok: 1, deep: nested(VARIABLES_MAX_DEPTH + 1) })).toEqual({
      variable: 'deep',
      violation: { reason: 'JSON_TOO_DEEP', limit: VARIABLES_MAX_DEPTH },
    });
    expect(checkVariables(undefined)).toBeNull();
    expect(checkVariables(null)).toBeNull();
  });
});

describe('boundedJson', () => {
  it('refuses, naming the field and the number, a number the table cannot store, anywhere in the value', () => {
    // The edges: ±2^53 − 1 and 1e-130 are stored; one step past either is not.
    const stored = [0, -0, 1.5, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1e-130, -1e-130, 0.30000000000000004];
    for (const n of stored) expect(boundedJson({ a: [n] }, 'metrics')).toEqual({ a: [n] });
    for (const n of [Number.MAX_SAFE_INTEGER + 2, -(2 ** 53) - 2, 1e20, 1e308, 9e-131, 5e-324, -1e-300]) {
      expect(() => boundedJson({ deep: { list: [1, n] } }, 'metrics')).toThrow(
        expect.objectContaining({
          message: expect.stringContaining(`metrics holds the number ${n}, which cannot be stored`),
          extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'metrics', reason: 'NUMBER_OUT_OF_RANGE', value: n }),
        }),
      );
    }
    // Only stored values are held to it: the check of a request's variables looks at their depth alone.
    expect(checkJsonInput({ n: 1e308 }, { maxDepth: 4 })).toBeNull();
  });

  it('returns a value within the limits and throws BAD_USER_INPUT naming the field otherwise', () => {
    expect(boundedJson({ a: 1 }, 'metrics')).toEqual({ a: 1 });
    expect(boundedJson(null, 'metrics')).toBeNull();
    expect(() => boundedJson(nested(JSON_INPUT_LIMITS.maxDepth + 1), 'metrics')).toThrow(
      expect.objectContaining({
        message: expect.stringContaining('metrics is nested more than 16 levels'),
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'metrics', reason: 'JSON_TOO_DEEP' }),
      }),
    );
    expect(() => boundedJson({ text: 'x'.repeat(JSON_INPUT_LIMITS.maxBytes) }, 'exif')).toThrow(
      expect.objectContaining({
        extensions: expect.objectContaining({
          code: 'BAD_USER_INPUT',
          field: 'exif',
          reason: 'JSON_TOO_LARGE',
          limit: JSON_INPUT_LIMITS.maxBytes,
        }),
      }),
    );
  });
});
