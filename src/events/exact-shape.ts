/**
 * A fast answer, for the common case, to "would this schema's parse return this value unchanged?"
 * (decision 466, "Ingestion checks a log line's shape without zod when it is exactly an event…").
 * Ingestion checks every line of every session's log against the event schema, and zod builds a
 * fresh copy of each object it parses and, in a process just started, is slow until warm; most
 * lines are exactly of the schema's shape, and for those a plain check of the JSON-parsed value
 * says the same at a fraction of the cost.
 *
 * The check is compiled from the zod schema's own definition, so the schema stays the one source
 * of truth. It only ever says "yes, exactly" or "not sure": a value with a key the schema does not
 * know, a value the schema refuses, or a part of a schema this compiler has no rule for (a
 * refinement, a transform, a default, a check it does not know) is "not sure", and the caller
 * parses it with zod, which gives the error or the stripped result as before. It must never say
 * yes where zod would refuse or change the value: `exact-shape.test.ts` holds the two to the same
 * verdicts over every event kind and many malformed variants of each.
 */
import type { z } from 'zod';

/** Says whether `value` is exactly of the schema's shape; false may also mean "not sure". */
export type ExactShapeCheck = (value: unknown) => boolean;

/** Compiles `schema`'s check; a schema it cannot check at all answers "not sure" for everything. */
export function exactShapeCheck(schema: z.core.$ZodType): ExactShapeCheck {
  return compile(schema, true) ?? notSure;
}

/**
 * Whether every part of `schema`, every option of its unions included, has a compiled check: a
 * test holds the event schema to it, so no kind of event silently falls back to zod.
 */
export function compilesWhole(schema: z.core.$ZodType): boolean {
  return compile(schema, false) !== undefined;
}

const notSure: ExactShapeCheck = () => false;

/**
 * A part's check, or undefined when this compiler has no rule for it. `partial`: a union option
 * it has no rule for is left to zod rather than the whole union.
 */
function compile(schema: z.core.$ZodType, partial: boolean): ExactShapeCheck | undefined {
  const def = schema._zod.def;
  switch (def.type) {
    case 'string':
      return noChecks(def) ? (value) => typeof value === 'string' : undefined;
    case 'boolean':
      return noChecks(def) ? (value) => typeof value === 'boolean' : undefined;
    case 'number':
      return numberCheck(def as z.core.$ZodNumberDef);
    case 'literal':
    case 'enum':
      return noChecks(def) ? oneOf(schema) : undefined;
    case 'optional': {
      // An absent key reaches here as undefined; JSON has no undefined value otherwise.
      const inner = noChecks(def) ? compile((def as z.core.$ZodOptionalDef).innerType, partial) : undefined;
      return inner && ((value) => value === undefined || inner(value));
    }
    case 'nullable': {
      const inner = noChecks(def) ? compile((def as z.core.$ZodNullableDef).innerType, partial) : undefined;
      return inner && ((value) => value === null || inner(value));
    }
    case 'array':
      return arrayCheck(def as z.core.$ZodArrayDef, partial);
    case 'object':
      return objectCheck(def as z.core.$ZodObjectDef, partial);
    case 'union':
      return discriminatedCheck(def as z.core.$ZodDiscriminatedUnionDef, partial);
    default:
      return undefined;
  }
}

// The checks below loop by index, not `for…of`: ingestion runs them for every line of a log, most
// of them before V8 has optimised them, and an iterator costs most there.

function noChecks(def: z.core.$ZodTypeDef): boolean {
  return def.checks === undefined || def.checks.length === 0;
}

/** The values a literal or an enum allows (zod's own list of them). */
function oneOf(schema: z.core.$ZodType): ExactShapeCheck | undefined {
  const values = schema._zod.values;
  if (values === undefined) return undefined;
  return (value) => values.has(value as z.core.util.Primitive);
}

/** A finite number, with zod's integer and bound checks; any other check is not compiled. */
function numberCheck(def: z.core.$ZodNumberDef): ExactShapeCheck | undefined {
  if (def.coerce === true) return undefined;
  const rules: ((value: number) => boolean)[] = [];
  for (const check of def.checks ?? []) {
    const rule = check._zod.def as z.core.$ZodCheckDef & Record<string, unknown>;
    if (rule.check === 'number_format' && rule.format === 'safeint') rules.push(Number.isSafeInteger);
    else if (rule.check === 'greater_than' && typeof rule.value === 'number') {
      const bound = rule.value;
      rules.push(rule.inclusive === true ? (value) => value >= bound : (value) => value > bound);
    } else if (rule.check === 'less_than' && typeof rule.value === 'number') {
      const bound = rule.value;
      rules.push(rule.inclusive === true ? (value) => value <= bound : (value) => value < bound);
    } else return undefined;
  }
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return false;
    for (let i = 0; i < rules.length; i++) if (!rules[i]!(value)) return false;
    return true;
  };
}

function arrayCheck(def: z.core.$ZodArrayDef, partial: boolean): ExactShapeCheck | undefined {
  const element = noChecks(def) ? compile(def.element, partial) : undefined;
  if (element === undefined) return undefined;
  return (value) => {
    if (!Array.isArray(value)) return false;
    for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
    return true;
  };
}

/**
 * An object holding no key but the shape's, each with a value its schema allows unchanged. A
 * shape with a catch-all (strict or passthrough objects) or a key named like one of every
 * object's inherited properties is not compiled: with neither, reading `value[key]`, as zod does,
 * sees only the object's own keys.
 */
function objectCheck(def: z.core.$ZodObjectDef, partial: boolean): ExactShapeCheck | undefined {
  if (!noChecks(def) || def.catchall !== undefined) return undefined;
  const keys = Object.keys(def.shape);
  const checks: ExactShapeCheck[] = [];
  for (const key of keys) {
    const check = key in Object.prototype ? undefined : compile(def.shape[key]!, partial);
    if (check === undefined) return undefined;
    checks.push(check);
  }
  return (value) => {
    if (!isObject(value)) return false;
    let present = 0;
    for (let i = 0; i < keys.length; i++) {
      const field = value[keys[i]!];
      if (!checks[i]!(field)) return false;
      if (field !== undefined) present++;
    }
    // No key but the shape's: as many keys as the shape's present ones. An own `__proto__`
    // (JSON.parse makes one) is counted too, and zod would drop it: not exact, so zod decides.
    return Object.keys(value).length === present;
  };
}

/**
 * A discriminated union: the option named by the discriminator's value. A plain union is not
 * compiled (zod keeps the first option that passes, stripping what it does not know, so a later
 * option matching exactly would not be zod's answer).
 */
function discriminatedCheck(
  def: z.core.$ZodDiscriminatedUnionDef,
  partial: boolean,
): ExactShapeCheck | undefined {
  const discriminator = def.discriminator as string | undefined;
  if (!noChecks(def) || discriminator === undefined || def.unionFallback === true) return undefined;
  if (discriminator in Object.prototype) return undefined;
  const options = new Map<unknown, ExactShapeCheck>();
  for (const option of def.options) {
    const optionDef = option._zod.def;
    if (optionDef.type !== 'object') return undefined;
    const tag = (optionDef as z.core.$ZodObjectDef).shape[discriminator];
    const tags = tag?._zod.def.type === 'literal' ? tag._zod.values : undefined;
    if (tags === undefined || tags.has(undefined)) return undefined;
    // An option this compiler cannot check is left to zod; the others stay fast.
    const check = compile(option, partial) ?? (partial ? notSure : undefined);
    if (check === undefined) return undefined;
    for (const value of tags) options.set(value, check);
  }
  return (value) => {
    if (!isObject(value)) return false;
    const check = options.get(value[discriminator]);
    return check !== undefined && check(value);
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
