/**
 * A repository's own Baton settings, in `.baton/config.json` at its root, committed with the code
 * so every clone (and every session's worktree) agrees: how to check a change before it lands,
 * where to push, whether agents hear about each other's overlapping work. Each domain owns its
 * section; an unknown key, anywhere, is an error that names it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { formatIssues, InvalidInputError } from '../shared/errors.js';
import { PolicySection } from './policy-config.js';
import { EnvironmentSections } from './environment-config.js';
import { RoutinesSection } from './routine-config.js';
import { SyncSection } from './sync-config.js';
import { VerifySection } from './verify-config.js';
import { TasksSection } from './task-config.js';
import { WatchdogSection } from './watchdog-config.js';

export const REPO_CONFIG_FILE = join('.baton', 'config.json');

/** An hour: a check longer than that is a hang, not a test suite. */
const MAX_CHECK_SECONDS = 3600;
export const DEFAULT_CHECK_SECONDS = 600;

export const RepoConfig = z
  .object({
    merge: z
      .object({
        /**
         * The command that must pass before work lands, run in a scratch worktree of the merged
         * result: an argument list (`["npm", "test"]`) or one command line for `sh -c`, as a
         * package.json script is. Unset: no check runs, and the merge says so.
         */
        check: z.union([z.string().trim().min(1), z.array(z.string()).min(1)]).optional(),
        /** Seconds the check may run before it is stopped and the merge refused. */
        checkTimeoutSeconds: z.number().int().min(1).max(MAX_CHECK_SECONDS).optional(),
        /** The branch work lands on; unset, each session's own base branch. */
        base: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    pr: z
      .object({
        /** The remote pull requests are pushed to (default `origin`). */
        remote: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    radar: z
      .object({
        /** Tell both agents, in their next turn, what the other is changing where they overlap. */
        tellAgents: z.boolean().optional(),
      })
      .strict()
      .optional(),
    // Work items (decision 71, "Tasks are their own domain beside sessions"): tracker links, auto-start
    // after dependencies, committed or ignored files.
    tasks: TasksSection.optional(),
    /** The destructive-action gate (src/policy): rule actions, the repository's own rules, writable folders. */
    policy: PolicySection.optional(),
    attempts: z
      .object({
        /** The most attempts one best-of may start (default 8): each is a session, a worktree and an agent's cost. */
        maxAttempts: z.number().int().min(1).max(100).optional(),
        /** The most batches one fan-out may make (default 50). */
        maxBatches: z.number().int().min(1).max(1000).optional(),
      })
      .strict()
      .optional(),
    // Worktrees ready to work in (decision 59, "Setup runs in the session's host"): agents, worktree,
    // ports, env, cleanup.
    ...EnvironmentSections,
    /** Scheduled and triggered agents (decision 116, "A routine's run is an ordinary session"), by name. */
    routines: RoutinesSection.optional(),
    // Intervention triggers (decision 89, "The watchdog sits beside the sessions"): src/watchdog.
    ...WatchdogSection,
    /** Sessions' branches and uncommitted work pushed to a shared remote at turn ends (src/sync). */
    sync: SyncSection.optional(),
    /** Baton runs the check itself at turn ends, for evidence-backed review (src/provenance). */
    verify: VerifySection.optional(),
  })
  .strict();
export type RepoConfig = z.infer<typeof RepoConfig>;

/** The repository's `.baton/config.json`, or `{}` when it has none; bad JSON or a bad key is a clear error. */
export function loadRepoConfig(root: string): RepoConfig {
  const path = join(root, REPO_CONFIG_FILE);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidInputError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const reserved = reservedKey(raw, []);
  if (reserved !== undefined)
    throw new InvalidInputError(
      `${path}: ${reserved.join('.')}: "${reserved.at(-1) ?? ''}" cannot be a name here (JavaScript reserves it for objects' own machinery); rename it`,
    );
  const parsed = RepoConfig.safeParse(raw);
  if (!parsed.success) throw new InvalidInputError(`${path}: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * Names an object's machinery, not a value: a record such as `agents` or `routines` parsed with
 * one of them lost the entry silently (`agents.__proto__` was dropped, the session ran without
 * it), so the config is refused with the key's path instead (decision 332).
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function reservedKey(value: unknown, at: string[]): string[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const key of Object.keys(value)) {
    const here = Array.isArray(value) ? [...at, `[${key}]`] : [...at, key];
    if (!Array.isArray(value) && RESERVED_KEYS.has(key)) return here;
    const inner = reservedKey((value as Record<string, unknown>)[key], here);
    if (inner !== undefined) return inner;
  }
  return undefined;
}
