/**
 * The sections of `.baton/config.json` that make a session's worktree ready to work in (issue
 * 15): whose agent setup the agents load, what is copied, shared and run while a session is
 * `preparing`, its ports, its variables, and when finished worktrees are cleaned up. Paths are
 * relative to the repository; whether they stay inside it, and whether a shared folder is
 * ignored by git, is checked against the repository at dispatch (src/environments/plan.ts).
 */
import { z } from 'zod';

/** Claude Code's own names for where its settings come from: `~/.claude`, `.claude/`, `.claude/settings.local.json`. */
export const CLAUDE_SETTING_SOURCES = ['user', 'project', 'local'] as const;
/** For Codex: the user's `CODEX_HOME` (config, login, MCP servers) and the repository's AGENTS.md. */
export const CODEX_SETTING_SOURCES = ['user', 'project'] as const;
export const SHARE_MODES = ['auto', 'reflink', 'hardlink', 'symlink'] as const;

/** Three hours: setup longer than that is a hang, not an install. */
const MAX_SETUP_SECONDS = 3 * 3600;
export const DEFAULT_SETUP_SECONDS = 600;

const relativePath = z
  .string()
  .trim()
  .min(1)
  .refine((p) => !p.startsWith('/'), { message: 'must be a path relative to the repository' });
/** One command line for `sh -c` (as a package.json script), or an argument list run as is. */
const command = z.union([z.string().trim().min(1), z.array(z.string()).min(1)]);
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be a variable name (letters, digits, _)' });

export const EnvironmentSections = {
  agents: z
    .object({
      claude: z
        .object({ settingSources: z.array(z.enum(CLAUDE_SETTING_SOURCES)) })
        .strict()
        .optional(),
      codex: z
        .object({ settingSources: z.array(z.enum(CODEX_SETTING_SOURCES)) })
        .strict()
        .optional(),
    })
    .strict()
    .optional(),
  worktree: z
    .object({
      /** Files or folders copied from the main checkout (`.env`); `.worktreeinclude` adds more. */
      copy: z.array(relativePath).optional(),
      /** Heavy git-ignored folders shared with the main checkout without duplicating bytes. */
      share: z
        .array(z.union([relativePath, z.object({ path: relativePath, mode: z.enum(SHARE_MODES) }).strict()]))
        .optional(),
      /** Commands run in the new worktree while the session is `preparing`, in order. */
      setup: z.array(command).optional(),
      setupTimeoutSeconds: z.number().int().min(1).max(MAX_SETUP_SECONDS).optional(),
      /** Commands run in the worktree before it is removed (services it started, say). */
      teardown: z.array(command).optional(),
    })
    .strict()
    .optional(),
  ports: z
    .object({
      /** How many ports each session leases. */
      count: z.number().int().min(1).max(100),
      /** The variables they are exported as, in order; `PORT` for one port when unset. */
      env: z.array(envName).optional(),
      /** Where leases are taken from, inclusive (default 20000–39999). */
      range: z
        .tuple([z.number().int().min(1024).max(65535), z.number().int().min(1024).max(65535)])
        .optional(),
    })
    .strict()
    .optional(),
  /** Variables for every session, `${SESSION}`, `${PORT}`… filled in per session. */
  env: z.record(envName, z.string()).optional(),
  cleanup: z
    .object({
      /** A finished session's worktree unused this long is archived by `baton gc`. */
      idleHours: z.number().positive().optional(),
      /** At most this many worktrees per repository; the oldest idle ones are archived first. */
      maxWorktrees: z.number().int().min(1).optional(),
    })
    .strict()
    .optional(),
};
