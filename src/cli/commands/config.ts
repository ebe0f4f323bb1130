/**
 * `baton config get|set|unset`: Baton's own settings in `$BATON_HOME/config.json` (the agent a
 * dispatch runs by default, concurrency, notifications, …). Each write is checked whole before
 * it lands, so a bad value is refused and the file keeps what it had.
 */
import { readUserConfig, writeUserConfig } from '../../shared/config.js';
import { InvalidInputError } from '../../shared/errors.js';
import { homePaths } from '../../shared/paths.js';
import { printJson, type Context } from '../context.js';

type Tree = Record<string, unknown>;

export function configGet(ctx: Context, key: string | undefined, opts: { json?: boolean }): void {
  const config = readUserConfig(homePaths(ctx.home).config) as Tree;
  const value = key === undefined ? config : lookup(config, path(key));
  if (opts.json === true) return printJson(ctx, value ?? null);
  if (value === undefined) return void ctx.out.write(`${key} is not set\n`);
  ctx.out.write(typeof value === 'string' ? `${value}\n` : `${JSON.stringify(value, null, 2)}\n`);
}

export function configSet(ctx: Context, key: string, text: string): void {
  const file = homePaths(ctx.home).config;
  const config = structuredClone(readUserConfig(file)) as Tree;
  // A number, true/false or JSON is taken as such; anything else is a string (an agent's name).
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    value = text;
  }
  place(config, path(key), value);
  try {
    writeUserConfig(file, config);
  } catch (error) {
    throw new InvalidInputError(`Not saved: ${(error as Error).message}`, { key });
  }
  ctx.out.write(`${key} = ${JSON.stringify(value)} (in ${file})\n`);
}

export function configUnset(ctx: Context, key: string): void {
  const file = homePaths(ctx.home).config;
  const config = structuredClone(readUserConfig(file)) as Tree;
  const keys = path(key);
  const parent = lookup(config, keys.slice(0, -1));
  if (parent !== null && typeof parent === 'object') delete (parent as Tree)[keys.at(-1)!];
  writeUserConfig(file, config);
  ctx.out.write(`${key} unset\n`);
}

function path(key: string): string[] {
  const keys = key.split('.');
  if (keys.some((k) => k === '' || k === '__proto__' || k === 'constructor' || k === 'prototype'))
    throw new InvalidInputError(
      `"${key}" is not a setting's name (e.g. agent, maxConcurrent, notifications.desktop)`,
    );
  return keys;
}

function lookup(tree: Tree, keys: string[]): unknown {
  let here: unknown = tree;
  for (const k of keys) {
    if (here === null || typeof here !== 'object') return undefined;
    here = (here as Tree)[k];
  }
  return here;
}

function place(tree: Tree, keys: string[], value: unknown): void {
  let here = tree;
  for (const k of keys.slice(0, -1)) {
    const next = here[k];
    if (next === null || typeof next !== 'object') here[k] = {};
    here = here[k] as Tree;
  }
  here[keys.at(-1)!] = value;
}
