/**
 * A loopback npm registry for installing Baton's packed tarball with no network (decision 186):
 * it serves, for every package of Baton's production dependency tree as installed in this
 * checkout's node_modules, a packument and a tarball made from the installed folder. npm then
 * resolves and fetches everything from 127.0.0.1, as it would from the public registry.
 *
 * Two things differ from the public registry, both because nothing may be downloaded or built:
 * - A native package (better-sqlite3) is served with the binary this checkout already built and
 *   without its install script and binding.gyp, where the public one downloads a prebuilt binary
 *   or compiles. Same machine, same Node: the binary fits.
 * - Packages in `withheld` (the Agent SDK's 364 MB platform binary, an optional dependency) are
 *   answered 404, which npm takes as "optional, not available here" and installs without.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  gypfile?: boolean;
  [key: string]: unknown;
}

export interface LoopbackRegistry {
  url: string;
  /** Packages served (name@version). */
  served: string[];
  /** Requests answered 404, by path: what npm asked for and did not get. */
  missing: string[];
  /** Names some served package declares optional (an optional dependency or peer): npm may ask and do without. */
  optional: Set<string>;
  close(): Promise<void>;
}

/** The folder `name` resolves to from `from`, as Node finds it (node_modules up the tree). */
function resolvePackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Every package the root's `dependencies` need at run time, each folder once. */
export function productionTree(root: string, withheld: (name: string) => boolean): Map<string, string> {
  const found = new Map<string, string>(); // name@version → folder
  const visit = (name: string, from: string): void => {
    if (withheld(name)) return;
    const folder = resolvePackage(name, from);
    if (folder === undefined) return; // an optional dependency for another platform, or an unused optional peer
    const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
    const key = `${manifest.name}@${manifest.version}`;
    if (found.has(key)) return;
    found.set(key, folder);
    for (const dep of Object.keys({
      ...manifest.dependencies,
      ...manifest.optionalDependencies,
      ...manifest.peerDependencies,
    }))
      visit(dep, folder);
  };
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Manifest;
  for (const dep of Object.keys(rootManifest.dependencies ?? {})) visit(dep, root);
  return found;
}

/**
 * Packs an installed folder as npm would publish it: `package/…`, without its own node_modules.
 * An uncompressed tar (npm reads either): gzip made building the registry the slowest step.
 */
function packFolder(folder: string, work: string, index: number): { file: string; manifest: Manifest } {
  const file = join(work, `${index}.tar`);
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
  const hooks = ['preinstall', 'install', 'postinstall'].filter((h) => manifest.scripts?.[h] !== undefined);
  if (hooks.length === 0 && manifest.gypfile !== true && !existsSync(join(folder, 'binding.gyp'))) {
    execFileSync('tar', [
      '-cf',
      file,
      '-C',
      folder,
      '--exclude=node_modules',
      '--transform',
      's,^\\.,package,',
      '.',
    ]);
    return { file, manifest };
  }
  // Built here already: served without what would download or compile at install (module comment).
  const stage = join(work, `stage-${index}`);
  cpSync(folder, join(stage, 'package'), {
    recursive: true,
    filter: (source) => !source.slice(folder.length).split('/').includes('node_modules'),
  });
  for (const hook of hooks) delete manifest.scripts![hook];
  delete manifest.gypfile;
  rmSync(join(stage, 'package', 'binding.gyp'), { force: true });
  writeFileSync(join(stage, 'package', 'package.json'), JSON.stringify(manifest, null, 2));
  execFileSync('tar', ['-cf', file, '-C', stage, 'package']);
  rmSync(stage, { recursive: true, force: true });
  return { file, manifest };
}

export async function startLoopbackRegistry(
  root: string,
  work: string,
  withheld: (name: string) => boolean,
): Promise<LoopbackRegistry> {
  mkdirSync(work, { recursive: true });
  const packuments = new Map<
    string,
    { name: string; versions: Record<string, Manifest>; 'dist-tags': { latest: string } }
  >();
  const tarballs = new Map<string, string>();
  const served: string[] = [];
  const missing: string[] = [];
  const optional = new Set<string>();
  let port = 0;
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    const tarball = tarballs.get(path);
    if (tarball !== undefined) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(readFileSync(tarball));
      return;
    }
    const packument = packuments.get(path.slice(1));
    if (packument === undefined) {
      missing.push(path);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(packument).replaceAll('http://registry.invalid/', `http://127.0.0.1:${port}/`));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  port = (server.address() as AddressInfo).port;

  let index = 0;
  for (const [key, folder] of productionTree(root, withheld)) {
    const { file, manifest } = packFolder(folder, work, index++);
    const bytes = readFileSync(file);
    const route = `/-/tarballs/${index}.tar`;
    tarballs.set(route, file);
    const entry = packuments.get(manifest.name) ?? {
      name: manifest.name,
      versions: {},
      'dist-tags': { latest: manifest.version },
    };
    entry.versions[manifest.version] = {
      ...manifest,
      _id: key,
      dist: {
        // Rewritten to this server's address as it is served.
        tarball: `http://registry.invalid${route}`,
        shasum: createHash('sha1').update(bytes).digest('hex'),
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      },
    };
    packuments.set(manifest.name, entry);
    served.push(key);
    for (const name of Object.keys(manifest.optionalDependencies ?? {})) optional.add(name);
    const peers = (manifest.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
    for (const [name, meta] of Object.entries(peers)) if (meta.optional === true) optional.add(name);
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    served,
    missing,
    optional,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}
