/** Query parameters arrive as strings; these schemas check and convert them with readable errors. */
import { z } from 'zod';

/** An optional integer in [min, max]; `describe` names the range in the error, e.g. "a non-negative integer". */
export function intQuery(
  name: string,
  min: number,
  max: number,
  describe = `an integer from ${min} to ${max}`,
) {
  return z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined || value === '') return;
      const n = Number(value);
      if (!Number.isInteger(n) || n < min || n > max)
        ctx.addIssue({ code: 'custom', message: `"${name}" must be ${describe}, got "${value}"` });
    })
    .transform((value) => (value === undefined || value === '' ? undefined : Number(value)));
}

/** A flag that is on when present at all (`?follow=1`, `?follow`). */
export const flagQuery = z
  .string()
  .optional()
  .transform((value) => value !== undefined);
