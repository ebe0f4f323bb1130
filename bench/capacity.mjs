// Capacity (decision 260, "Memory-aware admission"): what one running session costs this machine
// in Baton's own processes — its host (the scripted agent runs inside it, so the host alone is
// Baton's part) and its MCP server — against a bare `node`, PSS (shared pages split among their
// users) and RSS; and the process-tree figure the admission gate measures per session. The MCP
// server is the supervisor's endpoint (decision 365): its cost is what the supervisor grows by
// serving every session's tools, split among the sessions; the stdio `baton mcp` each session
// ran before (and still runs as the fallback) is measured beside it.
// Run after `npm run build`: node bench/capacity.mjs
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { endProcess, processStart } from './processes.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const { procMemory } = await import(join(ROOT, 'dist', 'capacity', 'index.js'));
const SESSIONS = 5;
const root = mkdtempSync(join(tmpdir(), 'baton-bench-capacity-'));
const home = join(root, 'home');
const env = {
  ...process.env,
  BATON_HOME: home,
  BATON_AGENT: 'scripted',
  BATON_MAX_CONCURRENT: '16',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@b',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@b',
};
const baton = (args, cwd) =>
  new Promise((done, fail) =>
    execFile(process.execPath, [BIN, ...args], { cwd, env }, (e, out, err) =>
      e ? fail(new Error(err)) : done(out),
    ),
  );

/** One process's own PSS and RSS in MB (no children). */
function own(pid) {
  const field = (text, name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  let pss = NaN;
  try {
    pss = field(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss');
  } catch {}
  return { pss, rss: field(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS') };
}
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const mb = (x) => `${x.toFixed(1)} MB`;

let supervisorPid;
// When it started, read as its pid is learned: a supervisor that died mid-section leaves its pid to others.
let supervisorStarted;
let hostPids = [];
const extra = [];
try {
  const repo = join(root, 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env });
  execFileSync('git', ['add', '.'], { cwd: repo, env });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo, env });
  const script = join(root, 'script.json');
  writeFileSync(script, JSON.stringify({ steps: [{ sleep: 600_000 }] }));
  const ids = [];
  for (let i = 0; i < SESSIONS; i++)
    ids.push(
      JSON.parse(
        await baton(['dispatch', `bench ${i}`, '--name', `s${i}`, '--script', script, '--json'], repo),
      ).id,
    );
  supervisorPid = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8')).pid;
  supervisorStarted = processStart(supervisorPid);
  // Each host is up once its MCP credential is written (the bench's only wait without an event to follow).
  for (const id of ids)
    while (
      !existsSync(join(home, 'sessions', id, 'door', 'mcp-credential')) ||
      !existsSync(join(home, 'sessions', id, 'host.json'))
    )
      await new Promise((r) => setTimeout(r, 50));
  hostPids = ids.map((id) => JSON.parse(readFileSync(join(home, 'sessions', id, 'host.json'), 'utf8')).pid);
  const hosts = hostPids.map(own);
  const trees = procMemory().treesMb(hostPids);

  // Every session's agent calling a tool of the supervisor's endpoint, as claude and codex do:
  // the supervisor measured before and after (it loads the MCP SDK at the first call).
  const { port } = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8'));
  const supervisorBefore = own(supervisorPid);
  for (const id of ids) {
    const credential = readFileSync(join(home, 'sessions', id, 'door', 'mcp-credential'), 'utf8').trim();
    const http = new Client({ name: 'bench', version: '1' });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${credential}` } },
      }),
    );
    await http.callTool({ name: 'list_sessions', arguments: {} });
    await http.close();
  }
  const supervisorAfter = own(supervisorPid);
  const shared = {
    pss: Math.max(0, supervisorAfter.pss - supervisorBefore.pss) / SESSIONS,
    rss: Math.max(0, supervisorAfter.rss - supervisorBefore.rss) / SESSIONS,
  };

  // One `baton mcp` as an agent starts it (the stdio fallback, and every session before decision 365), measured once it has answered a tool call.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { ...env, BATON_SESSION_CREDENTIAL_FILE: join(home, 'sessions', ids[0], 'door', 'mcp-credential') },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.callTool({ name: 'list_sessions', arguments: {} });
  const mcp = own(transport.pid);
  await client.close();

  // A bare node, idle, as the floor any Node process starts from.
  const bare = spawn(process.execPath, ['-e', 'process.stdout.write("up"); setInterval(() => {}, 1 << 30)'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  extra.push(bare);
  await once(bare.stdout, 'data');
  const node = own(bare.pid);
  const supervisor = own(supervisorPid);

  const host = { pss: mean(hosts.map((h) => h.pss)), rss: mean(hosts.map((h) => h.rss)) };
  const before = { pss: host.pss + mcp.pss, rss: host.rss + mcp.rss };
  const perSession = { pss: host.pss + shared.pss, rss: host.rss + shared.rss };
  console.log(`\n## Capacity: Baton's own memory per running session (${SESSIONS} scripted sessions)`);
  console.log(`bare node (idle):        ${mb(node.pss)} PSS, ${mb(node.rss)} RSS`);
  console.log(
    `session host (mean):     ${mb(host.pss)} PSS, ${mb(host.rss)} RSS (${mb(host.rss - node.rss)} RSS over bare node)`,
  );
  console.log(
    `MCP in the supervisor:   +${mb(supervisorAfter.pss - supervisorBefore.pss)} PSS, +${mb(supervisorAfter.rss - supervisorBefore.rss)} RSS once, for all ${SESSIONS} sessions (${mb(shared.pss)} PSS each)`,
  );
  console.log(
    `baton mcp (stdio, one):  ${mb(mcp.pss)} PSS, ${mb(mcp.rss)} RSS (${mb(mcp.rss - node.rss)} RSS over bare node)`,
  );
  console.log(
    `per session, host + MCP: ${mb(perSession.pss)} PSS, ${mb(perSession.rss)} RSS (with a baton mcp each: ${mb(before.pss)} PSS, ${mb(before.rss)} RSS); ten sessions: ${mb(10 * perSession.rss)} RSS (was ${mb(10 * before.rss)}) before any agent runs`,
  );
  console.log(`supervisor (one):        ${mb(supervisor.pss)} PSS, ${mb(supervisor.rss)} RSS`);
  console.log(
    `process tree per session as the admission gate measures it (host and children, PSS): mean ${mb(mean([...trees.values()]))}`,
  );
} finally {
  for (const child of extra) child.kill();
  if (supervisorPid !== undefined) await endProcess(supervisorPid, undefined, supervisorStarted);
  // The hosts by their pids; the spare host the supervisor keeps warm names the home in its arguments.
  for (const pid of hostPids)
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  try {
    for (const line of execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n')) {
      if (line.includes(home)) process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    }
  } catch {}
  rmSync(root, { recursive: true, force: true, maxRetries: 5 });
}
