/**
 * A button is unavailable only with a reason (decision 193, "Every disabled button says why, and a
 * landed commit is titled by its prompt"): `whyNot(reason, title)` gives the props of a button that
 * is disabled when `reason` is a string, with that reason as its tooltip and in `data-why` (the
 * browser tests read it), and otherwise enabled with its usual `title`. Buttons take `disabled`
 * only through this, which why.test.ts checks over every component.
 */
export interface Availability {
  disabled: boolean;
  title: string | undefined;
  'data-why': string | undefined;
}

export function whyNot(reason: string | false | null | undefined, title?: string): Availability {
  const why = typeof reason === 'string' && reason !== '' ? reason : undefined;
  return { disabled: why !== undefined, title: why ?? title, 'data-why': why };
}

/** The first reason that holds, for a button with several: `firstOf(busy && 'Saving…', empty && 'Write something first')`. */
export function firstOf(...reasons: (string | false | null | undefined)[]): string | undefined {
  return reasons.find((r): r is string => typeof r === 'string' && r !== '');
}
