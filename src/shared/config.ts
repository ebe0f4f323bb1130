/** User-level configuration in `$BATON_HOME/config.json`, validated at the boundary. */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { availableParallelism, hostname } from 'node:os';
import { z } from 'zod';
import { AGENT_IDS, AGENT_NAME, AGENT_NAME_RULE, type AgentId } from '../events/vocabulary.js';
import { checkWorkerName, FLAG_ENV, machineNameFrom, parseStoreUrl } from './cluster-settings.js';
import { InvalidInputError, formatIssues } from './errors.js';
import { parsePort } from './port.js';

export { parsePort };

/** A week: longer than that is "keep it", which 0 already says. */
const MAX_IDLE_HOST_SECONDS = 7 * 24 * 3600;
/** Half an hour ready for review and unused: the agent process is let go; a reply resumes it. */
export const DEFAULT_IDLE_HOST_SECONDS = 1800;

export const DEFAULT_RETENTION_DAYS = 30;
/** A terabyte: past that a memory figure is a typo. */
const MAX_MEMORY_MB = 1024 * 1024;
/** Kept free for everything else on the machine (decision 260). */
export const DEFAULT_MEMORY_RESERVE_MB = 512;
/** How often keep-fresh reads each base's tip to notice a user's own commits (landings are heard at once). */
export const DEFAULT_FRESH_INTERVAL_MS = 20_000;
const MAX_RETENTION_DAYS = 3650;

/** A channel's URL: http or https, the user's choice of host (a loopback ntfy server is fine). */
const channelUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

/**
 * An Agent Client Protocol agent of the user's own (decision 243): the command that starts it in
 * ACP mode over stdio, its arguments and the variables it needs.
 */
export const AgentEntryConfig = z
  .object({
    command: z.string().min(1, 'must name the command that starts the agent in ACP mode'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
  })
  .strict();
export type AgentEntryConfig = z.infer<typeof AgentEntryConfig>;

export const AgentEntriesConfig = z.record(z.string(), AgentEntryConfig).superRefine((agents, ctx) => {
  for (const name of Object.keys(agents)) {
    if (!AGENT_NAME.test(name))
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: AGENT_NAME_RULE,
      });
    else if ((AGENT_IDS as readonly string[]).includes(name))
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `"${name}" is one of Baton's own agents; give your entry another name`,
      });
  }
});

export const UserConfig = z
  .object({
    /** The agent `baton dispatch` (and the board's and page's forms) start when none is named (decision 185). */
    agent: z.string().regex(AGENT_NAME, AGENT_NAME_RULE).optional(),
    /** Sessions mid-turn at once; more dispatches queue. */
    maxConcurrent: z.number().int().min(1).max(1000).optional(),
    /** A cap on the work waiting for review: new dispatches wait queued while it is reached (decision 153). */
    reviewCapacity: z
      .object({
        sessions: z.number().int().min(1).max(10_000).optional(),
        lines: z.number().int().min(1).max(100_000_000).optional(),
      })
      .strict()
      .optional(),
    /**
     * Memory-aware admission (decision 260): a queued session starts only when free memory less
     * this reserve covers its agent's typical footprint. `memoryAdmission: false` turns it off.
     */
    memoryAdmission: z.boolean().optional(),
    memoryReserveMb: z.number().int().min(0).max(MAX_MEMORY_MB).optional(),
    /** A typical footprint per agent kind, in MB, in place of the measured one (decision 261). */
    memoryFootprintMb: z
      .record(z.string().regex(AGENT_NAME, AGENT_NAME_RULE), z.number().int().min(1).max(MAX_MEMORY_MB))
      .optional(),
    /**
     * Keep-fresh (decision 307): idle sessions' branches rebased onto their base when it moves. On
     * unless `enabled: false`; a conflicting rebase is handed to the session's agent as a turn
     * (`conflicts: "agent"`, the default) or left for the user (`"user"`).
     */
    keepFresh: z
      .object({ enabled: z.boolean().optional(), conflicts: z.enum(['agent', 'user']).optional() })
      .strict()
      .optional(),
    /** Seconds a session ready for review keeps its agent process before letting it go; 0 keeps it. */
    idleHostSeconds: z.number().int().min(0).max(MAX_IDLE_HOST_SECONDS).optional(),
    /**
     * Notifications: desktop ones (notify-send / osascript), all off with `desktop: false`, or by
     * kind; and a webhook and an ntfy topic URL for needs-input, failed and budget events (decision 153).
     */
    notifications: z
      .object({
        desktop: z.boolean().optional(),
        needsInput: z.boolean().optional(),
        failed: z.boolean().optional(),
        alerts: z.boolean().optional(),
        webhook: channelUrl.optional(),
        ntfy: channelUrl.optional(),
      })
      .strict()
      .optional(),
    /** The user's own ACP agents, by name: `agents.<name> = { command, args, env }` (decision 243). */
    agents: AgentEntriesConfig.optional(),
    /** The shared PostgreSQL store of a workspace served by several machines (`postgres://…`). */
    store: z.string().optional(),
    /** This machine's name among the workers sharing the store; default the host name. */
    machine: z.string().optional(),
    /** Days the shared store keeps the workspace's log (and each machine its copies of the others' events). */
    storeRetentionDays: z.number().int().min(1).max(MAX_RETENTION_DAYS).optional(),
  })
  .strict()
  // The default agent is one of Baton's own or one of the user's entries (decision 280).
  .superRefine((config, ctx) => {
    if (config.agent === undefined || (AGENT_IDS as readonly string[]).includes(config.agent)) return;
    if (config.agents?.[config.agent] === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['agent'],
        message: `no agent is called "${config.agent}": Baton's are ${AGENT_IDS.join(', ')}, and yours are the entries of "agents"${Object.keys(config.agents ?? {}).length === 0 ? ' (none)' : ` (${Object.keys(config.agents ?? {}).join(', ')})`}`,
      });
  });
export type UserConfig = z.infer<typeof UserConfig>;

export interface ResolvedConfig {
  /** The agent a dispatch runs when it names none, and where that came from; undefined: none chosen yet (decision 185). */
  agent: { id: AgentId; source: string } | undefined;
  maxConcurrent: number;
  /** The cap on work waiting for review; undefined: none. */
  reviewCapacity: { sessions?: number | undefined; lines?: number | undefined } | undefined;
  /** Memory-aware admission (decision 260); `meminfo` is where MemAvailable is read (`BATON_MEMINFO`, else the kernel's). */
  memory: {
    enabled: boolean;
    reserveMb: number;
    footprintMb: Record<AgentId, number>;
    meminfo: string;
    /** How often sessions' memory is measured and pressure looked for (`BATON_MEMORY_RECHECK_MS`); undefined: 15 s. */
    recheckMs: number | undefined;
  };
  /** How long a session ready for review keeps its agent process; 0: for as long as it lives. */
  idleHostSeconds: number;
  /** Keep-fresh (decision 307); `intervalMs` is how often base tips are read (`BATON_FRESH_INTERVAL_MS`). */
  keepFresh: { enabled: boolean; conflicts: 'agent' | 'user'; intervalMs: number };
  /** `BATON_PORT`: the one port to listen on. Unset, the supervisor reuses its last port or takes a free one. */
  port: number | undefined;
  /** Which desktop notifications are sent; `BATON_NOTIFY=off` turns them all off. */
  notifications: {
    desktop: boolean;
    needsInput: boolean;
    failed: boolean;
    alerts: boolean;
    webhook?: string | undefined;
    ntfy?: string | undefined;
  };
  /** The shared store to join, and where its URL came from (for messages); undefined: this machine alone. */
  store: { url: string; source: string } | undefined;
  /** This machine's worker name, and where it came from. */
  machine: { name: string; source: string };
  /** How many days the shared log is kept (decision 142). */
  storeRetentionDays: number;
}

/**
 * Agents spend most of their time waiting on a model, so two per core is a fair default; four is
 * the floor so a small machine still runs a handful in parallel.
 */
export function defaultMaxConcurrent(): number {
  return Math.max(4, availableParallelism() * 2);
}

/** `$BATON_HOME/config.json` as written, checked; `{}` when there is none. */
export function readUserConfig(path: string): UserConfig {
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidInputError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = UserConfig.safeParse(raw);
  if (!parsed.success) throw new InvalidInputError(`${path}: ${formatIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * Writes `config.json` whole, checked first so a bad value is refused and the file stays as it
 * was; through a temporary file and a rename, so a reader never sees half of it.
 */
export function writeUserConfig(path: string, config: unknown): UserConfig {
  const parsed = UserConfig.safeParse(config);
  if (!parsed.success) throw new InvalidInputError(formatIssues(parsed.error.issues));
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(parsed.data, null, 2)}\n`);
  renameSync(temporary, path);
  return parsed.data;
}

export function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): ResolvedConfig {
  const fileConfig = readUserConfig(path);
  const fromEnv = env.BATON_MAX_CONCURRENT;
  let maxConcurrent = fileConfig.maxConcurrent ?? defaultMaxConcurrent();
  if (fromEnv !== undefined && fromEnv !== '') {
    const n = Number(fromEnv);
    if (!Number.isInteger(n) || n < 1)
      throw new InvalidInputError(`BATON_MAX_CONCURRENT must be a positive integer, got "${fromEnv}"`);
    maxConcurrent = n;
  }
  const portFromEnv = env.BATON_PORT;
  let port: number | undefined;
  if (portFromEnv !== undefined && portFromEnv !== '') {
    port = parsePort(portFromEnv);
    if (port === undefined)
      throw new InvalidInputError(`BATON_PORT must be a port number from 1 to 65535, got "${portFromEnv}"`);
  }
  let idleHostSeconds = fileConfig.idleHostSeconds ?? DEFAULT_IDLE_HOST_SECONDS;
  const idleFromEnv = env.BATON_IDLE_HOST_SECONDS;
  if (idleFromEnv !== undefined && idleFromEnv !== '') {
    const n = Number(idleFromEnv);
    if (!Number.isInteger(n) || n < 0 || n > MAX_IDLE_HOST_SECONDS) {
      throw new InvalidInputError(
        `BATON_IDLE_HOST_SECONDS must be a whole number of seconds from 0 (keep agents running) to ${MAX_IDLE_HOST_SECONDS}, got "${idleFromEnv}"`,
      );
    }
    idleHostSeconds = n;
  }
  const wanted = fileConfig.notifications ?? {};
  const notifications = {
    desktop: (wanted.desktop ?? true) && env.BATON_NOTIFY !== 'off',
    needsInput: wanted.needsInput ?? true,
    failed: wanted.failed ?? true,
    alerts: wanted.alerts ?? true,
    webhook: wanted.webhook,
    ntfy: wanted.ntfy,
  };
  let storeRetentionDays = fileConfig.storeRetentionDays ?? DEFAULT_RETENTION_DAYS;
  const retentionFromEnv = env.BATON_STORE_RETENTION_DAYS;
  if (retentionFromEnv !== undefined && retentionFromEnv !== '') {
    const n = /^\d+$/.test(retentionFromEnv) ? Number(retentionFromEnv) : NaN;
    if (!Number.isInteger(n) || n < 1 || n > MAX_RETENTION_DAYS) {
      throw new InvalidInputError(
        `BATON_STORE_RETENTION_DAYS must be a whole number of days from 1 to ${MAX_RETENTION_DAYS}, got "${retentionFromEnv}"`,
      );
    }
    storeRetentionDays = n;
  }
  return {
    agent: resolveAgent(fileConfig, env),
    maxConcurrent,
    reviewCapacity: fileConfig.reviewCapacity,
    memory: {
      enabled: fileConfig.memoryAdmission ?? true,
      reserveMb: fileConfig.memoryReserveMb ?? DEFAULT_MEMORY_RESERVE_MB,
      footprintMb: fileConfig.memoryFootprintMb ?? {},
      meminfo:
        env.BATON_MEMINFO !== undefined && env.BATON_MEMINFO !== '' ? env.BATON_MEMINFO : '/proc/meminfo',
      recheckMs: memoryRecheckOf(env),
    },
    port,
    idleHostSeconds,
    keepFresh: {
      enabled: fileConfig.keepFresh?.enabled ?? true,
      conflicts: fileConfig.keepFresh?.conflicts ?? 'agent',
      intervalMs: freshIntervalOf(env),
    },
    notifications,
    store: resolveStore(fileConfig, env),
    machine: resolveMachine(fileConfig, env),
    storeRetentionDays,
  };
}

/** `BATON_MEMORY_RECHECK_MS`: how often memory is measured (100 ms to an hour); unset: the manager's default. */
function memoryRecheckOf(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.BATON_MEMORY_RECHECK_MS;
  if (raw === undefined || raw === '') return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 100 || n > 3_600_000)
    throw new InvalidInputError(
      `BATON_MEMORY_RECHECK_MS must be a whole number of milliseconds from 100 to 3600000, got "${raw}"`,
    );
  return n;
}

/** How often keep-fresh reads base tips: 20 s, or `BATON_FRESH_INTERVAL_MS` (100 ms to a day). */
function freshIntervalOf(env: NodeJS.ProcessEnv): number {
  const raw = env.BATON_FRESH_INTERVAL_MS;
  if (raw === undefined || raw === '') return DEFAULT_FRESH_INTERVAL_MS;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 100 || n > 86_400_000)
    throw new InvalidInputError(
      `BATON_FRESH_INTERVAL_MS must be a whole number of milliseconds from 100 to 86400000, got "${raw}"`,
    );
  return n;
}

/** BATON_AGENT, else config.json's "agent" (what `baton config set agent` writes). */
function resolveAgent(file: UserConfig, env: NodeJS.ProcessEnv): ResolvedConfig['agent'] {
  const fromEnv = env.BATON_AGENT;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!AGENT_NAME.test(fromEnv))
      throw new InvalidInputError(
        `BATON_AGENT must name an agent (${AGENT_IDS.join(', ')}, or an entry of config.json's "agents"), got "${fromEnv}"`,
      );
    return { id: fromEnv, source: 'BATON_AGENT' };
  }
  return file.agent === undefined ? undefined : { id: file.agent, source: `config.json's "agent"` };
}

/** `--store`, else BATON_STORE, else config.json's "store"; checked, naming the one that is wrong. */
function resolveStore(file: UserConfig, env: NodeJS.ProcessEnv): ResolvedConfig['store'] {
  const given = firstGiven([
    ['--store', env[FLAG_ENV.store]],
    ['BATON_STORE', env.BATON_STORE],
    [`config.json's "store"`, file.store],
  ]);
  if (given === undefined) return undefined;
  parseStoreUrl(given.value, given.source);
  return { url: given.value, source: given.source };
}

/** `--machine`, else BATON_MACHINE, else config.json's "machine", else the host name made valid. */
function resolveMachine(file: UserConfig, env: NodeJS.ProcessEnv): ResolvedConfig['machine'] {
  const given = firstGiven([
    ['--machine', env[FLAG_ENV.machine]],
    ['BATON_MACHINE', env.BATON_MACHINE],
    [`config.json's "machine"`, file.machine],
  ]);
  if (given === undefined) return { name: machineNameFrom(hostname()), source: 'the host name' };
  return { name: checkWorkerName(given.value, given.source), source: given.source };
}

/** The first source that says something: an empty environment variable counts as unset. */
function firstGiven(sources: [string, string | undefined][]): { source: string; value: string } | undefined {
  for (const [source, value] of sources)
    if (value !== undefined && (value !== '' || !source.startsWith('BATON_'))) return { source, value };
  return undefined;
}
