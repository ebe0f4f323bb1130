/**
 * The `tasks` section of `.baton/config.json` (decision 71, "Tasks are their own domain beside
 * sessions"): tracker links, auto-start, and whether Baton's files are committed.
 */
import { z } from 'zod';

export const TasksSection = z
  .object({
    /**
     * How a tracker reference becomes a link: `{id}` is the reference without its `#`
     * (`https://github.com/acme/app/issues/{id}`, `https://acme.atlassian.net/browse/{id}`).
     */
    trackerUrl: z
      .string()
      .regex(/^https?:\/\/\S+$/, 'must be an http(s) address')
      .refine((url) => url.includes('{id}'), 'must hold {id}, where the reference goes')
      .optional(),
    /** A task started before its prerequisites landed waits, queued, and starts on the new base once they land (default true); false refuses the start. */
    autoStart: z.boolean().optional(),
    /**
     * Whether `.baton/decisions/`, `.baton/notes/` and `.baton/status.md` are the repository's
     * to commit (true), or kept out of git by the repository's own `.git/info/exclude` (false, the default).
     */
    commitFiles: z.boolean().optional(),
  })
  .strict();
export type TasksSection = z.infer<typeof TasksSection>;
