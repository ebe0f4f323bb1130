/**
 * The event schema's compiled exact-shape check (decision 466) against zod itself: over every kind
 * of event and thousands of malformed variants of them, the check says "exact" for a line exactly
 * when zod accepts it and returns it unchanged, key for key.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compilesWhole, exactShapeCheck } from './exact-shape.js';
import { BatonEvent, EventBody, makeEvent, parseEventText } from './index.js';
import { EVERY_FIELD } from './testing.js';

const isExact = exactShapeCheck(BatonEvent);

/** zod's verdict: it accepts the value and gives back the very same value. */
function zodKeepsWhole(schema: z.ZodType, value: unknown): boolean {
  const parsed = schema.safeParse(value);
  return parsed.success && isDeepStrictEqual(parsed.data, value);
}

/** Each kind with every field, each with only what it must carry, and the reasons a state gives. */
const GOOD: unknown[] = [
  ...EVERY_FIELD,
  ...EVERY_FIELD.map((body) => withoutOptional(body)),
  { type: 'message.added', role: 'assistant', text: 'hi', from: { sessionId: 's-2', name: 'other' } },
  { type: 'state.changed', from: 'working', to: 'needs_input', reason: { kind: 'question', text: 'q' } },
  { type: 'state.changed', to: 'failed', reason: { kind: 'error', message: 'm' } },
  { type: 'state.changed', to: 'needs_input', reason: { kind: 'note', message: 'm', until: 'soon' } },
  { type: 'limits.reported', windows: [] },
  { type: 'usage.reported', inputTokens: 0, outputTokens: 0, costUsd: 0 },
].map((body, i) => JSON.parse(JSON.stringify(makeEvent(i + 1, body as EventBody))) as unknown);

/** What a malformed or hand-edited line may hold where a field's value should be. */
const WRONG: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  -0.5,
  2 ** 53,
  1e300,
  '',
  'x',
  'queued',
  'allow',
  'run',
  'question',
  [],
  ['a'],
  [1],
  {},
  { kind: 'question', text: 't' },
  { name: 'n', usedPercent: 1 },
];

/** Every value the corpus's variants have: each key dropped, each value wrong, a key added, at every depth. */
function* variants(value: unknown): Generator<unknown> {
  if (Array.isArray(value)) {
    const items: unknown[] = value;
    for (let i = 0; i < items.length; i++)
      for (const item of [...variants(items[i]), ...WRONG]) yield items.map((v, j) => (j === i ? item : v));
    yield [...items, ...items.slice(0, 1)];
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const rest = { ...object };
    delete rest[key];
    yield rest;
    for (const item of [...variants(object[key]), ...WRONG]) yield { ...object, [key]: item };
  }
  yield { ...object, later: 1 };
  yield { ...object, '': 'empty key' };
  yield { ...object, constructor: 'x' };
}

describe('the exact-shape check (decision 466)', () => {
  it('has a compiled check for every kind of event, so none falls back to zod', () => {
    expect(compilesWhole(BatonEvent)).toBe(true);
    const kinds = new Set(GOOD.map((event) => (event as { type: string }).type));
    expect([...kinds].sort()).toEqual(EventBody.options.map((option) => option.shape.type.value).sort());
  });

  it('says exact for every kind of event a host writes, as zod keeps it whole', () => {
    for (const event of GOOD) {
      expect(zodKeepsWhole(BatonEvent, event)).toBe(true);
      expect(isExact(event)).toBe(true);
    }
  });

  it('gives zod’s verdict on every malformed variant of them: a key dropped, a value wrong, a key added, at any depth', () => {
    let exact = 0;
    let not = 0;
    for (const event of GOOD)
      for (const variant of variants(event)) {
        // As a log line holds it: what JSON can say.
        const line: unknown = JSON.parse(JSON.stringify(variant));
        const verdict = zodKeepsWhole(BatonEvent, line);
        if (isExact(line) !== verdict)
          expect({ line, exact: isExact(line) }).toEqual({ line, exact: verdict });
        if (verdict) exact++;
        else not++;
      }
    // Both answers were put to the test, many times.
    expect(exact).toBeGreaterThan(900);
    expect(not).toBeGreaterThan(7000);
  });

  it('never says exact where zod would refuse or change the value, for what JSON cannot hold either', () => {
    const base = GOOD.find((e) => (e as { type: string }).type === 'usage.reported') as object;
    for (const odd of [Number.NaN, Number.POSITIVE_INFINITY, -0, undefined, 2 ** 53 - 1, -(2 ** 53)])
      for (const key of ['inputTokens', 'costUsd', 'seq', 'model']) {
        const value = { ...base, [key]: odd };
        if (isExact(value)) expect(zodKeepsWhole(BatonEvent, value)).toBe(true);
      }
    // An own `__proto__` (which JSON.parse makes and zod drops) and a non-object are never exact.
    const line = JSON.stringify(GOOD[0]);
    expect(isExact(JSON.parse('{"__proto__":{"x":1},' + line.slice(1)))).toBe(false);
    for (const notAnEvent of [null, 1, 'x', [], [GOOD[0]]]) expect(isExact(notAnEvent)).toBe(false);
  });

  it('answers "not sure" for what it has no rule for, and zod decides', () => {
    const refined = z.object({ a: z.string().min(2) });
    expect(compilesWhole(refined)).toBe(false);
    expect(exactShapeCheck(refined)({ a: 'ok' })).toBe(false);
    const union = z.discriminatedUnion('t', [
      z.object({ t: z.literal('plain'), a: z.string() }),
      z.object({ t: z.literal('odd'), a: z.string().transform((s) => s.length) }),
    ]);
    // One option without a rule leaves that option to zod, and the others fast.
    expect(compilesWhole(union)).toBe(false);
    const check = exactShapeCheck(union);
    expect(check({ t: 'plain', a: 'x' })).toBe(true);
    expect(check({ t: 'odd', a: 'x' })).toBe(false);
    expect(exactShapeCheck(z.union([z.string(), z.number()]))('x')).toBe(false);
  });

  it('leaves a malformed line to zod, whose error names what is wrong', () => {
    const line = JSON.stringify({ ...(GOOD[0] as object), to: 'nowhere' });
    expect(() => parseEventText(line)).toThrow(/to/);
    expect(() => parseEventText('{"v":1')).toThrow(SyntaxError);
  });
});

function withoutOptional(body: EventBody): EventBody {
  const option = EventBody.options.find((o) => o.shape.type.value === body.type)!;
  const kept = Object.entries(body).filter(([key]) => {
    const field = (option.shape as Record<string, z.ZodType>)[key];
    return field !== undefined && !field.safeParse(undefined).success;
  });
  return Object.fromEntries(kept) as EventBody;
}
