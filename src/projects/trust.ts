/**
 * A repository's own commands run only once the user trusts them (decision 161, "A repository's
 * commands run only once trusted"). `.baton/config.json` is committed with the code: its setup and
 * teardown commands, its merge check, its routines (an agent, a prompt, a permission mode, and
 * for the scripted agent a script) and its variables (`BASH_ENV`, `NODE_OPTIONS` run code too)
 * would otherwise run as the user the first time anyone dispatches in a fresh clone — a cloned
 * repository, or a pull request's branch, could run anything. As direnv's `allow` and mise's
 * `trust`: the user trusts that exact content, by the sha256 of those parts, and a change asks
 * again. The gate's settings and the folders shared with the main checkout widen what an agent may
 * do, so they are in the digest too (decision 178). The rest of the file (ports, cleanup, radar,
 * …) runs nothing and needs no trust.
 *
 * The trusted digests live in Baton's state folder (`trusted-configs.json`), never in the
 * repository, so a commit cannot trust itself.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { UntrustedConfigError } from '../shared/errors.js';
import { REPO_CONFIG_FILE, type RepoConfig } from './config.js';

const STORE_FILE = 'trusted-configs.json';
/** Digests kept per repository: switching between a few branches does not ask each time. */
const KEPT_PER_REPOSITORY = 20;

/** One line of what would run, as the prompt shows it. */
export interface CommandLine {
  part: string;
  command: string;
}

export function commandParts(config: RepoConfig): Record<string, unknown> {
  const parts: Record<string, unknown> = {
    setup: config.worktree?.setup,
    teardown: config.worktree?.teardown,
    check: config.merge?.check,
    verify: config.verify?.command,
    verifyTests: config.verify?.tests,
    routines: config.routines,
    env: config.env,
    // What widens what an agent may do is consented to like a command (decision 178): the gate's
    // rule actions, its own rules and the folders it lets agents write, and folders shared with
    // the main checkout (an agent writing there writes the user's checkout).
    policy: config.policy,
    share: config.worktree?.share,
  };
  for (const key of Object.keys(parts)) if (parts[key] === undefined) delete parts[key];
  return parts;
}

/** The sha256 of the command-bearing parts, keys sorted: formatting and the other sections do not change it. */
export function commandDigest(config: RepoConfig): string | undefined {
  const parts = commandParts(config);
  if (Object.keys(parts).length === 0) return undefined;
  return createHash('sha256').update(canonical(parts)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** What the config would run, one line each, for the user to read before trusting it. */
export function commandLines(config: RepoConfig): CommandLine[] {
  const show = (c: string | string[]): string => (typeof c === 'string' ? c : JSON.stringify(c));
  const lines: CommandLine[] = [];
  for (const c of config.worktree?.setup ?? []) lines.push({ part: 'setup', command: show(c) });
  for (const c of config.worktree?.teardown ?? []) lines.push({ part: 'teardown', command: show(c) });
  if (config.merge?.check !== undefined)
    lines.push({ part: 'merge check', command: show(config.merge.check) });
  if (config.verify?.command !== undefined)
    lines.push({ part: 'verify at turn ends', command: show(config.verify.command) });
  if (config.verify?.tests !== undefined)
    lines.push({ part: "a turn's new tests, on the base", command: show(config.verify.tests) });
  for (const [name, spec] of Object.entries(config.routines ?? {})) {
    const what =
      spec.prompt ??
      (spec.promptFile === undefined ? `template ${spec.template ?? ''}` : `prompt file ${spec.promptFile}`);
    const mode = spec.permissionMode === undefined ? '' : ` in ${spec.permissionMode} mode`;
    const script = spec.agentOptions === undefined ? '' : `, options ${JSON.stringify(spec.agentOptions)}`;
    lines.push({ part: `routine ${name}`, command: `${spec.agent}${mode}: ${what}${script}` });
  }
  for (const [name, value] of Object.entries(config.env ?? {}))
    lines.push({ part: 'env', command: `${name}=${value}` });
  for (const [rule, action] of Object.entries(config.policy?.rules ?? {}))
    lines.push({ part: 'gate rule', command: `${rule}: ${action}` });
  for (const rule of config.policy?.custom ?? [])
    lines.push({ part: 'gate custom rule', command: JSON.stringify(rule) });
  for (const folder of config.policy?.writable ?? [])
    lines.push({ part: 'gate writable folder', command: folder });
  for (const shared of config.worktree?.share ?? [])
    lines.push({
      part: 'shared with the main checkout',
      command: typeof shared === 'string' ? shared : `${shared.path} (${shared.mode})`,
    });
  return lines;
}

const Store = z.object({
  version: z.literal(1),
  repositories: z.record(z.string(), z.object({ sha256: z.array(z.string()), trustedAt: z.string() })),
});
type Store = z.infer<typeof Store>;

function storePath(home: string): string {
  return join(home, STORE_FILE);
}

function readStore(home: string): Store {
  const path = storePath(home);
  if (!existsSync(path)) return { version: 1, repositories: {} };
  const parsed = Store.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  // A damaged file trusts nothing: every repository asks again, which is the safe side.
  return parsed.success ? parsed.data : { version: 1, repositories: {} };
}

export function isTrusted(home: string, root: string, digest: string): boolean {
  return readStore(home).repositories[root]?.sha256.includes(digest) === true;
}

/** Records `digest` as trusted for `root` (written whole, then renamed: never half a file). */
export function trustDigest(home: string, root: string, digest: string, now = new Date()): void {
  const store = readStore(home);
  const kept = (store.repositories[root]?.sha256 ?? []).filter((d) => d !== digest);
  store.repositories[root] = {
    sha256: [digest, ...kept].slice(0, KEPT_PER_REPOSITORY),
    trustedAt: now.toISOString(),
  };
  const path = storePath(home);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(store, null, 2) + '\n', { mode: 0o600 });
  renameSync(temporary, path);
}

export interface TrustState {
  root: string;
  file: string;
  /** Undefined when the config runs nothing: there is nothing to trust. */
  sha256: string | undefined;
  trusted: boolean;
  commands: CommandLine[];
}

export function trustState(home: string, root: string, config: RepoConfig): TrustState {
  const sha256 = commandDigest(config);
  return {
    root,
    file: join(root, REPO_CONFIG_FILE),
    sha256,
    trusted: sha256 === undefined || isTrusted(home, root, sha256),
    commands: commandLines(config),
  };
}

/** Throws UntrustedConfigError, showing what would run, unless the config's commands are trusted (or it has none). */
export function requireTrusted(home: string, root: string, config: RepoConfig): void {
  const state = trustState(home, root, config);
  if (state.trusted) return;
  throw new UntrustedConfigError(root, state.sha256 ?? '', state.commands, isKnown(home, root));
}

function isKnown(home: string, root: string): boolean {
  return readStore(home).repositories[root] !== undefined;
}
