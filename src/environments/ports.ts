/**
 * Ports leased per session: a block of ports no live session holds and nothing on the machine
 * listens on, exported under the configured names, recorded in SQLite (the port is the key, so
 * two sessions never hold one port) and kept across respawns; released when the session ends.
 * The search starts at a place derived from the session's name, so a session tends to get the
 * same ports each time it is dispatched under that name.
 */
import { createHash } from 'node:crypto';
import { createServer } from 'node:net';
import { InvalidInputError } from '../shared/errors.js';
import type { PortLeaseStore } from '../store/port-leases.js';

export const DEFAULT_PORT_RANGE: readonly [number, number] = [20000, 39999];

export interface PortRequest {
  count: number;
  names?: readonly string[] | undefined;
  range?: readonly [number, number] | undefined;
}

/** The variable names of a request: the configured ones, then `PORT`, `PORT_1`, … for the rest. */
export function portNames(request: PortRequest): string[] {
  const names: string[] = [];
  for (let i = 0; i < request.count; i++) names.push(request.names?.[i] ?? (i === 0 ? 'PORT' : `PORT_${i}`));
  return names;
}

/** Can we listen on this port, on loopback and on every interface? Then no dev server holds it. */
export async function bindable(port: number): Promise<boolean> {
  for (const host of ['127.0.0.1', '0.0.0.0']) {
    const ok = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (!ok) return false;
  }
  return true;
}

let queue: Promise<unknown> = Promise.resolve();

/** Leases `count` ports for a session, or throws when the range has too few free ones. */
export function leasePorts(
  store: PortLeaseStore,
  sessionId: string,
  seed: string,
  request: PortRequest,
  isFree = bindable,
): Promise<{ name: string; port: number }[]> {
  // One lease at a time within the supervisor: the check and the insert must not interleave.
  const next = queue.then(async () => {
    const names = portNames(request);
    const [low, high] = request.range ?? DEFAULT_PORT_RANGE;
    if (high < low)
      throw new InvalidInputError(
        `.baton/config.json: ports.range [${low}, ${high}] is empty; give [low, high] with low ≤ high.`,
      );
    const size = high - low + 1;
    const start = createHash('sha256').update(seed).digest().readUInt32BE(0) % size;
    const held = store.held();
    const chosen: { name: string; port: number }[] = [];
    for (let i = 0; i < size && chosen.length < names.length; i++) {
      const port = low + ((start + i) % size);
      if (held.has(port) || !(await isFree(port))) continue;
      chosen.push({ name: names[chosen.length]!, port });
    }
    if (chosen.length < names.length) {
      throw new InvalidInputError(
        `No ${names.length} free port(s) in ${low}–${high}: ${held.size} are leased to sessions and the rest are in use. Remove finished sessions (\`baton rm\`, \`baton gc\`) or widen ports.range in .baton/config.json.`,
      );
    }
    store.lease(sessionId, chosen);
    return chosen;
  });
  queue = next.catch(() => undefined);
  return next;
}
