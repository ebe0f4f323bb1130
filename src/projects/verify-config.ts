/**
 * The `verify` section of `.baton/config.json`: whether Baton runs the repository's check itself
 * at the end of every turn that changed the work, so "ready for review" carries evidence rather
 * than the agent's word (src/provenance). Off unless asked; the command is the repository's, run
 * only once trusted like its other commands (decision 254, "A verify command is trusted like the
 * merge check").
 */
import { z } from 'zod';

export const VerifySection = z
  .object({
    /** `turn`: after each turn that changed the work; `off` (the default): never by itself. */
    run: z.enum(['turn', 'off']).optional(),
    /** The command; unset, the merge check (`merge.check`). An argument list, or one line for `sh -c`. */
    command: z.union([z.string().trim().min(1), z.array(z.string()).min(1)]).optional(),
    /**
     * The command that runs one test file, `{file}` standing for its path (else it is appended):
     * set, Baton runs each test file a turn added or changed on the base and on the session's work
     * and flags those that pass without the change (decision 292). Trusted like the others.
     */
    tests: z.union([z.string().trim().min(1), z.array(z.string()).min(1)]).optional(),
    /** Seconds it may run before its process group is stopped (default 600). */
    timeoutSeconds: z.number().int().min(1).max(3600).optional(),
  })
  .strict();
export type VerifyConfig = z.infer<typeof VerifySection>;
