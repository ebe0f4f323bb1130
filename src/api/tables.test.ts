import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EndpointSpec } from './endpoint.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Every domain's endpoint table, found the way a new one would be: an export that `satisfies Table`. */
async function tables(): Promise<Map<string, Record<string, EndpointSpec>>> {
  const found = new Map<string, Record<string, EndpointSpec>>();
  for (const file of readdirSync(here).filter((f) => /^[a-z-]+\.ts$/.test(f))) {
    const module = (await import(join(here, file))) as Record<string, unknown>;
    for (const [name, value] of Object.entries(module)) {
      if (name !== name.toUpperCase() || typeof value !== 'object' || value === null) continue;
      const keys = Object.keys(value);
      if (keys.length > 0 && keys.every((k) => /^(GET|POST|DELETE) \//.test(k)))
        found.set(`${file}:${name}`, value as Record<string, EndpointSpec>);
    }
  }
  return found;
}

/** A route as the router matches it: its parameters' names do not matter. */
const shape = (route: string): string => route.replace(/:[A-Za-z]+/g, ':');

describe('the endpoint tables', () => {
  it('are twenty, each route under /api with a summary, in one table only', async () => {
    const all = await tables();
    expect(all.size).toBe(20);
    const owner = new Map<string, string>();
    for (const [table, routes] of all) {
      for (const [route, spec] of Object.entries(routes)) {
        expect(route, table).toMatch(/^(GET|POST|DELETE) \/api(\/[a-z0-9_.-]+|\/:[A-Za-z]+)*$/);
        expect(spec.summary.trim(), route).not.toBe('');
        expect(owner.get(route), `${route} in ${table}`).toBeUndefined();
        owner.set(route, table);
      }
    }
  });

  it('hold no two routes the router could not tell apart (the same path but for parameter names)', async () => {
    const seen = new Map<string, string>();
    for (const routes of (await tables()).values()) {
      for (const route of Object.keys(routes)) {
        const clash = seen.get(shape(route));
        expect(clash, `${route} and ${clash ?? ''}`).toBeUndefined();
        seen.set(shape(route), route);
      }
    }
  });

  it('let a session credential act as its own session only on routes that name one or act for the caller', async () => {
    for (const routes of (await tables()).values()) {
      for (const [route, spec] of Object.entries(routes)) {
        // A body-less GET that a session could only "own" would have nothing to be its own in.
        if (spec.sessions === 'own') expect(route, route).toMatch(/^(POST|DELETE) |:ref/);
        // A route only for the token's holder is never opened to a session's credential.
        if (spec.tokenOnly === true) expect(spec.sessions, route).toBeUndefined();
      }
    }
  });
});
