/**
 * The `watchdog` section of `.baton/config.json`: which intervention triggers watch this
 * repository's sessions, their thresholds, and what each does when it fires (alert, pause the
 * session, or stop it). `false` turns a trigger off; an unknown key is named in the error.
 */
import { z } from 'zod';

const action = z.enum(['alert', 'pause', 'stop']);
const rule = <S extends z.ZodRawShape>(shape: S) =>
  z.union([z.literal(false), z.object({ ...shape, action: action.optional() }).strict()]).optional();

export const WatchdogSection = {
  watchdog: z
    .object({
      /** A working session with no new event for this long. */
      noProgress: rule({
        minutes: z
          .number()
          .min(0.01)
          .max(24 * 60)
          .optional(),
      }),
      /**
       * The same tool call (or cycle of calls) ending the same way, or the same failing command,
       * this many times: an alert; paused when the calls have side effects, the loop has spent
       * `pauseUsd`, or it reaches `pauseAfter` (decision 151). An `action` applies to every loop.
       */
      loop: rule({
        repeats: z.number().int().min(2).max(100).optional(),
        pauseAfter: z.number().int().min(2).max(1000).optional(),
        pauseUsd: z.number().min(0).max(10_000).optional(),
      }),
      /** This many errors (failed tools, agent errors) in a row without a success between. */
      repeatedErrors: rule({ count: z.number().int().min(2).max(100).optional() }),
      /** An edit outside the session's task scope (its globs). */
      outOfScope: rule({}),
      /** An approval nobody answered for this long. */
      approvalWait: rule({
        minutes: z
          .number()
          .min(0.01)
          .max(7 * 24 * 60)
          .optional(),
      }),
      /** This many turns in a row that changed no file. */
      noChange: rule({ turns: z.number().int().min(2).max(1000).optional() }),
      /**
       * A session ready for review and unused this long has its agent process let go (its state
       * kept: a reply resumes it). Quiet housekeeping, so it has no action; the user's
       * `idleHostSeconds` is the default.
       */
      idle: z
        .union([
          z.literal(false),
          z
            .object({
              minutes: z
                .number()
                .min(0.01)
                .max(7 * 24 * 60)
                .optional(),
            })
            .strict(),
        ])
        .optional(),
    })
    .strict()
    .optional(),
};

export type WatchdogConfig = NonNullable<z.infer<(typeof WatchdogSection)['watchdog']>>;
export type WatchdogAction = z.infer<typeof action>;
