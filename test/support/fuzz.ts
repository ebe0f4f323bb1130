/**
 * Generated inputs for the fuzz tests: a seeded generator (the same seed gives the same cases,
 * so a failure reproduces), values walked from the endpoint tables' zod schemas (valid ones,
 * boundary ones and wrong ones), and strings chosen to break things: huge, odd unicode, shell
 * and git syntax, path traversal, percent escapes.
 */
import type { z } from 'zod';

export interface Rng {
  /** In [0, 1). */
  next(): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: small, fast and good enough to spread cases; not for anything secret. */
export function seeded(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (p) => next() < p,
  };
}

/** The seed from `BATON_FUZZ_SEED`, else a fresh one (printed with every failure). */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.BATON_FUZZ_SEED);
  return Number.isInteger(given) && given > 0 ? given : 1 + Math.floor(Math.random() * 2 ** 31);
}

/**
 * Strings that have broken tools before. `canary` is an absolute path outside the state folder
 * and the repository: a command that obeys any of these strings writes it, and the test looks.
 */
export function nastyStrings(canary: string): string[] {
  return [
    '',
    ' ',
    '-',
    '--',
    '--help',
    '-h',
    '--version',
    '.',
    '..',
    '/',
    '../../../../../../etc/passwd',
    'a/b',
    'a..b',
    'x.lock',
    '.hidden',
    'HEAD',
    'HEAD~99999',
    '@{-1}',
    'main^{tree}',
    'refs/heads/main',
    ':/initial',
    'x'.repeat(300),
    'x'.repeat(5_000),
    'é',
    'ß',
    '日本語のセッション',
    '🙂'.repeat(50),
    'a\u0000b',
    '\u0000',
    '\ud800',
    '\udfff\ud800',
    '\u202eevil',
    '\u200b',
    'line\nbreak',
    '\r\n',
    '\t',
    '%00',
    '%2e%2e%2f',
    '%ZZ',
    '{{reply}}',
    '__proto__',
    'constructor',
    'toString',
    'null',
    'undefined',
    'NaN',
    '-1',
    '0',
    '1e309',
    '9'.repeat(40),
    `--output=${canary}`,
    `--upload-pack=touch ${canary}`,
    `-o${canary}`,
    `$(touch ${canary})`,
    `\`touch ${canary}\``,
    `; touch ${canary}`,
    `| touch ${canary}`,
    `&& touch ${canary}`,
    `>${canary}`,
    canary,
  ];
}

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** A JSON value of any shape, small. */
export function anyJson(rng: Rng, depth = 0): unknown {
  const kind = rng.int(0, depth > 2 ? 4 : 6);
  switch (kind) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
      return rng.pick([0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308]);
    case 3:
    case 4:
      return rng.pick(['', 'x', 'é', '🙂', 'a'.repeat(100)]);
    case 5:
      return Array.from({ length: rng.int(0, 3) }, () => anyJson(rng, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: rng.int(0, 3) }, (_, i) => [`k${i}`, anyJson(rng, depth + 1)]),
      );
  }
}

/** A value the schema accepts, as far as its shape tells (fields whose meaning is elsewhere, like a path, are not known here). */
export function validValue(schema: z.ZodType, rng: Rng, strings: string[]): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.ZodType>;
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(shape)) {
        const optional = ['optional', 'default'].includes(defOf(field).type);
        if (!optional || rng.chance(0.5)) out[key] = validValue(field, rng, strings);
      }
      return out;
    }
    case 'optional':
    case 'default':
    case 'nullable':
    case 'readonly':
      return validValue(def.innerType as z.ZodType, rng, strings);
    case 'pipe':
      return validValue(def.in as z.ZodType, rng, strings);
    case 'string': {
      const { minLength, maxLength } = schema as unknown as {
        minLength: number | null;
        maxLength: number | null;
      };
      const fits = strings.filter((s) => s.length >= (minLength ?? 0) && s.length <= (maxLength ?? Infinity));
      return fits.length > 0 && rng.chance(0.7) ? rng.pick(fits) : 'x'.repeat(Math.max(minLength ?? 1, 1));
    }
    case 'enum':
      return rng.pick(Object.values(def.entries as Record<string, string>));
    case 'literal':
      return rng.pick(def.values as unknown[]);
    case 'boolean':
      return rng.chance(0.5);
    case 'number':
    case 'int':
      return rng.int(0, 100);
    case 'array':
      return Array.from({ length: rng.int(0, 2) }, () => validValue(def.element as z.ZodType, rng, strings));
    case 'record':
      return Object.fromEntries(Array.from({ length: rng.int(0, 2) }, (_, i) => [`k${i}`, anyJson(rng)]));
    default:
      return anyJson(rng);
  }
}

/** A value of the wrong type for a field of this schema's kind. */
export function wrongType(schema: z.ZodType, rng: Rng): unknown {
  const type = defOf(schema).type;
  const choices: unknown[] = [null, 0, -1, 1e308, true, [], {}, [1, 2], { a: 1 }, 'x'];
  return rng.pick(
    choices.filter(
      (value) =>
        !(type === 'string' && typeof value === 'string') &&
        !(type === 'boolean' && typeof value === 'boolean'),
    ),
  );
}

/** `{"a":{"a":...}}` nested `depth` times, as JSON text (building it as an object would overflow the test's own stack). */
export function deepJson(depth: number, open = '{"a":', close = '}'): string {
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
}

/** The schema of each field of an object schema (after optional/default/pipe wrappers). */
export function fieldsOf(schema: z.ZodType): Record<string, z.ZodType> {
  const def = defOf(schema);
  if (def.type === 'object') return def.shape as Record<string, z.ZodType>;
  if (['optional', 'default', 'nullable', 'readonly'].includes(def.type))
    return fieldsOf(def.innerType as z.ZodType);
  if (def.type === 'pipe') return fieldsOf(def.in as z.ZodType);
  return {};
}

export function isOptional(schema: z.ZodType): boolean {
  return ['optional', 'default'].includes(defOf(schema).type);
}

/** A line of a Node or V8 stack trace: what no answer and no CLI output may show. */
export const STACK_LINE = /^\s*at .+(\(.*:\d+:\d+\)|:\d+:\d+)$/m;
