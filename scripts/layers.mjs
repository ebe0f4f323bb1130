// The one layer table. Every folder under src/ (and the web page) has its place here; lint's
// import rules (eslint.config.js) and the diagram in CONTRIBUTING.md are both generated from it.
//
//   node scripts/layers.mjs            prints the diagram
//   node scripts/layers.mjs --write    writes it into CONTRIBUTING.md (between the markers)
//   node scripts/layers.mjs --check    fails when a folder of src/ has no place, the diagram is stale, or
//                                      a known reach is mended and still listed (npm run lint runs this)
//   node scripts/layers.mjs --measure  prints the reaches still known and the folder graph's height
//
// The rule: a folder imports folders of its own layer or a lower one, never a higher one; and it
// reaches another domain only through that domain's index.ts (its face; a folder whose code runs
// in two processes may name a second, `faces`). Folders marked `open` are vocabularies whose
// modules are each a face (one endpoint table per domain, one module per table): any module of
// theirs may be imported.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import console from 'node:console';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Bottom layer first. `why` is what the folder is, in a few words, for the diagram. */
export const LAYERS = [
  {
    name: 'vocabulary',
    about: 'words every layer shares; imports nothing above',
    folders: {
      events: { open: true, why: 'the event union, workspace events (defined once), vocabulary' },
      shared: { open: true, why: 'named errors (exit codes, statuses), paths, config, logging' },
      api: { open: true, why: 'one endpoint table per domain (zod) and the one typed client' },
    },
  },
  {
    name: 'infrastructure',
    about: 'storage, the bus, the queue, git and a repository’s own settings',
    folders: {
      store: { open: true, why: 'SQLite: numbered migrations, one module per table' },
      bus: { why: 'the workspace bus: publish, stored with a global seq, replay then live' },
      scheduler: { why: 'slots, a first-come queue, gates that hold work back' },
      settings: { why: 'the workspace’s settings store' },
      worktrees: { why: 'git worktrees, snapshots, diffs, archives' },
      projects: { why: 'a repository’s `.baton/config.json`, each domain’s section' },
      sandbox: { why: 'the mount namespace agents run in (bubblewrap), or plainly none' },
    },
  },
  {
    name: 'session services',
    about: 'what one session needs around it; they see sessions through interfaces',
    folders: {
      usage: { why: 'prices, the usage ledger, burn rate, windows' },
      capacity: { why: 'memory: measured footprints, the admission gate, headroom' },
      policy: { why: 'the destructive-action gate: shell read, rules, verdicts' },
      approvals: { why: 'asking and answering: allow rules, auto-approval, the approvals table' },
      context: { why: 'transcripts, search, handoff packs, import' },
      environments: { why: 'worktrees ready to work in: setup, ports, copies' },
      // Two faces: the supervisor's side (index.ts) and what `baton mcp` runs in the agent's
      // process (serve.ts), so the CLI's start does not build the supervisor's side (decision 385).
      mcp: { why: 'Baton’s MCP server for agents, per-session credentials', faces: ['index', 'serve'] },
      review: { why: 'coupling, review groups, combined diffs, comments' },
      radar: { why: 'the conflict radar: hot and soft conflicts' },
      provenance: { why: 'agent blame: the session and turn that wrote each line, in git notes' },
    },
  },
  {
    name: 'agents',
    about: 'one adapter per agent protocol; vendor names stop here',
    folders: {
      agents: { why: 'the adapter interface, the turn loop, claude/, codex/, scripted/' },
    },
  },
  {
    name: 'sessions',
    about: 'the session: state machine, hosts, ingestion, dispatch',
    folders: {
      sessions: { why: 'the one state machine, dispatch, commands, hosts, ingestion' },
    },
  },
  {
    name: 'work domains',
    about: 'work over several sessions; each reaches another through its face',
    folders: {
      merge: { why: 'the merge queue, checks, group bisection, pull requests' },
      sync: { why: 'sessions’ work pushed to and fetched from the remote' },
      tasks: { why: 'work items, columns, scopes, decisions and notes as files' },
      attempts: { why: 'best-of-N and fan-out' },
      routines: { why: 'scheduled and triggered agents' },
      watchdog: { why: 'budgets, intervention rules, alerts, notifications' },
      fresh: { why: 'keep-fresh: idle sessions rebased onto their moving base' },
      doctor: { why: 'is the machine ready: agents and sign-in, limits, disk, ports' },
    },
  },
  {
    name: 'multi-machine',
    about: 'one workspace over several machines on PostgreSQL',
    folders: {
      cluster: { why: 'the store, the shared log, workers, placement' },
    },
  },
  {
    name: 'server',
    about: 'the supervisor process: wires every domain behind the HTTP API',
    folders: {
      server: { why: 'lock, token, the HTTP API (routes per domain), the page’s assets' },
    },
  },
  {
    name: 'clients',
    about: 'thin clients of the HTTP API',
    folders: {
      // `baton mcp` is the mcp domain's stdio server run as a command: the CLI hosts it through
      // src/mcp's face, and reaches no other domain (decision 385).
      cli: {
        why: 'the `baton` command line; it hosts `baton mcp`',
        openTo: ['board'],
        only: ['api', 'events', 'shared', 'board', 'mcp'],
      },
      board: { why: 'the terminal board (Ink)', only: ['api', 'events', 'shared', 'cli'] },
      web: { why: 'the browser page (web/src)', only: ['api', 'events'] },
    },
  },
];

/**
 * Reaches that break the rule today, each to be mended by moving the thing down or exporting it
 * from the face; lint allows exactly these and nothing new. `file` imports `target` (a folder).
 */
export const KNOWN_REACHES = JSON.parse(readFileSync(join(root, 'scripts', 'layers-known.json'), 'utf8'));

const place = new Map();
LAYERS.forEach((layer, level) => {
  for (const [folder, spec] of Object.entries(layer.folders))
    place.set(folder, { level, layer: layer.name, ...spec });
});
export const FOLDERS = place;

/** The top folder a path of the tree belongs to: `src/<folder>/…`, or `web` for `web/…`. */
export function folderOf(path) {
  if (path.startsWith('web/')) return 'web';
  const [top, folder] = path.split('/');
  return top === 'src' ? folder : undefined;
}

/** Why `file` may not import `target` (a path of the tree), or undefined when it may. */
export function breach(file, target) {
  const from = folderOf(file);
  const to = folderOf(target);
  if (!from || !to || from === to) return undefined;
  const a = place.get(from);
  const b = place.get(to);
  if (!a || !b) return `${to}/ or ${from}/ has no place in the layer table (scripts/layers.mjs)`;
  if (a.only && !a.only.includes(to)) return `${from}/ imports only ${a.only.join(', ')}`;
  if (b.level > a.level) return `${from}/ (${a.layer}) may not import ${to}/ (${b.layer}, a higher layer)`;
  const rest = target.slice(target.indexOf(`/${to}/`) + to.length + 2);
  const faces = b.faces ?? ['index'];
  const face = faces.some((name) => rest === `${name}.js` || rest === `${name}.ts` || rest === `${name}.tsx`);
  if (!face && !b.open && !(b.openTo ?? []).includes(from)) {
    const named = faces.map((name) => `${to}/${name}.ts`).join(' or ');
    return `${from}/ reaches ${to}/ only through its face, ${named} (${rest} is inside)`;
  }
  return undefined;
}

/** Every folder under src/ must have a place. */
export function unplacedFolders() {
  return readdirSync(join(root, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !place.has(e.name))
    .map((e) => e.name);
}

/** The product's modules under src/ (tests left out: a test may set up from any layer). */
function productFiles(dir = join(root, 'src')) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return productFiles(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** Every relative import of the product's modules, as `{ file, target }` paths of the tree. */
export function imports() {
  const found = [];
  for (const path of productFiles()) {
    const text = readFileSync(path, 'utf8');
    const file = relative(root, path);
    // `… from './x.js'`, `import './x.js'` and `import('./x.js')`: what the lint rule sees too.
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.[^'"]+)['"]/g))
      found.push({ file, target: relative(root, resolve(dirname(path), m[1])) });
  }
  return found;
}

/** The reaches that break the rule today, one per file and folder reached. */
export function reaches() {
  const seen = new Map();
  for (const { file, target } of imports()) {
    if (!breach(file, target)) continue;
    const reach = { file, target: folderOf(target) };
    seen.set(`${reach.file} -> ${reach.target}`, reach);
  }
  return [...seen.values()];
}

/**
 * How tall the folder graph is: the longest chain of folders each importing the next (a folder
 * alone is 1). The layer table bounds it from above; fewer floors means shorter chains to read.
 */
export function height() {
  const next = new Map();
  for (const { file, target } of imports()) {
    const from = folderOf(file);
    const to = folderOf(target);
    if (!from || !to || from === to) continue;
    if (!next.has(from)) next.set(from, new Set());
    next.get(from).add(to);
  }
  const memo = new Map();
  const tall = (folder, path) => {
    if (memo.has(folder)) return memo.get(folder);
    if (path.has(folder)) return 0; // a loop of folders: counted once
    path.add(folder);
    let best = 1;
    for (const to of next.get(folder) ?? []) best = Math.max(best, 1 + tall(to, path));
    path.delete(folder);
    memo.set(folder, best);
    return best;
  };
  return Math.max(...[...next.keys()].map((folder) => tall(folder, new Set())));
}

export function diagram() {
  const lines = [];
  for (let level = LAYERS.length - 1; level >= 0; level--) {
    const layer = LAYERS[level];
    lines.push(`${String(level).padStart(2)}  ${layer.name} — ${layer.about}`);
    for (const [folder, spec] of Object.entries(layer.folders)) {
      const name = folder === 'web' ? 'web/' : `src/${folder}/`;
      const notes = [
        spec.open ? 'open' : undefined,
        spec.only ? `imports only ${spec.only.join(', ')}` : undefined,
        spec.faces ? `faces: ${spec.faces.map((f) => `${f}.ts`).join(', ')}` : undefined,
      ]
        .filter(Boolean)
        .join('; ');
      lines.push(`      ${name.padEnd(18)}${spec.why}${notes ? ` (${notes})` : ''}`);
    }
  }
  return lines.map((l) => `    ${l}`.trimEnd()).join('\n');
}

const BEGIN = '<!-- layers:begin (generated by scripts/layers.mjs --write) -->';
const END = '<!-- layers:end -->';

function contributing(text) {
  const start = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (start < 0 || end < 0) throw new Error(`CONTRIBUTING.md lacks the markers ${BEGIN} … ${END}`);
  return text.slice(0, start + BEGIN.length) + '\n\n' + diagram() + '\n\n' + text.slice(end);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = join(root, 'CONTRIBUTING.md');
  const text = readFileSync(file, 'utf8');
  if (process.argv.includes('--write')) {
    writeFileSync(file, contributing(text));
  } else if (process.argv.includes('--check')) {
    const problems = unplacedFolders().map(
      (f) => `src/${f}/ has no place in the layer table (scripts/layers.mjs)`,
    );
    if (contributing(text) !== text)
      problems.push('CONTRIBUTING.md’s layer diagram is stale: run node scripts/layers.mjs --write');
    const still = new Set(reaches().map((r) => `${r.file} -> ${r.target}`));
    for (const reach of KNOWN_REACHES) {
      if (!existsSync(join(root, reach.file)))
        problems.push(`scripts/layers-known.json names ${reach.file}, which is gone: drop it`);
      else if (!still.has(`${reach.file} -> ${reach.target}`))
        problems.push(
          `scripts/layers-known.json lists ${reach.file} -> ${reach.target}, which is mended: drop it`,
        );
    }
    if (problems.length) {
      console.error(problems.join('\n'));
      process.exit(1);
    }
  } else if (process.argv.includes('--measure')) {
    console.log(`known reaches: ${KNOWN_REACHES.length}; folder graph height: ${height()}`);
  } else {
    console.log(diagram());
  }
}
