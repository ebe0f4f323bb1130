// Baton's MCP server (decision 95, "Each run of a session's agent has its own credential"): what one
// costs per session, and what a tool call adds over the raw API call it makes, both measured in the
// same run. A session's credential, the real `baton mcp` over stdio and the MCP SDK's own client,
// against a supervisor with 20 sessions. Run after `npm run build`: node bench/mcp.mjs
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { credentialPath } from '../dist/mcp/credentials.js';
import { endProcess, processStart } from './processes.mjs';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const BIN = join(ROOT, 'bin', 'baton');
const SESSIONS = 20;
const CALLS = 200;
const root = mkdtempSync(join(tmpdir(), 'baton-bench-mcp-'));
const home = join(root, 'home');
const env = {
  ...process.env,
  BATON_HOME: home,
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
const pct = (xs, p) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x) => `${x.toFixed(2)} ms`;
const rssMb = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function timed(n, fn) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times;
}

function rawGet(port, token, path) {
  return new Promise((done, fail) => {
    const req = request(
      { host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } },
      (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () =>
          res.statusCode === 200 ? done(body) : fail(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on('error', fail);
    req.end();
  });
}

let supervisorPid;
// When it started, read as its pid is learned: a supervisor that died mid-section leaves its pid to others.
let supervisorStarted;
try {
  const repo = join(root, 'repo');
  mkdirSync(repo);
  writeFileSync(join(repo, 'README.md'), '# bench\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env });
  execFileSync('git', ['add', '.'], { cwd: repo, env });
  execFileSync('git', ['commit', '-qm', 'init'], { cwd: repo, env });
  const script = join(root, 'script.json');
  writeFileSync(script, JSON.stringify({ steps: [{ sleep: 600_000 }] }));
  for (let i = 0; i < SESSIONS; i++)
    await baton(['dispatch', `bench ${i}`, '--name', `s${i}`, '--script', script, '--json'], repo);
  const info = JSON.parse(readFileSync(join(home, 'supervisor.json'), 'utf8'));
  supervisorPid = info.pid;
  supervisorStarted = processStart(supervisorPid);
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const { sessions } = JSON.parse(await rawGet(info.port, token, '/api/sessions'));
  const first = sessions.find((s) => s.name === 's0');
  // Its credential is minted in the session's door when its host starts (the bench's only wait
  // without an event to follow), within a minute or the section fails instead of waiting for ever.
  const credentialFile = credentialPath(home, first.id);
  for (const deadline = Date.now() + 60_000; !existsSync(credentialFile);) {
    if (Date.now() > deadline) throw new Error(`no credential at ${credentialFile} after 60 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const credential = readFileSync(credentialFile, 'utf8').trim();

  // Start-up: from spawning `baton mcp` to its first answered tool call, as an agent sees it.
  const starts = [];
  let client;
  let transport;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { ...env, BATON_SESSION_CREDENTIAL_FILE: credentialFile },
      cwd: first.worktree,
    });
    client = new Client({ name: 'bench', version: '1' });
    await client.connect(transport);
    await client.callTool({ name: 'list_sessions', arguments: {} });
    starts.push(performance.now() - t0);
    if (i < 4) await client.close();
  }
  const nodeBaseline = await timed(
    5,
    () => new Promise((done) => execFile(process.execPath, ['-e', '0'], () => done())),
  );

  // A tool call against the raw call it makes (the same list, same supervisor, same run).
  await timed(20, () => client.callTool({ name: 'list_sessions', arguments: {} }));
  const tool = await timed(CALLS, () => client.callTool({ name: 'list_sessions', arguments: {} }));
  const raw = await timed(CALLS, () => rawGet(info.port, credential, '/api/sessions'));
  const rawToken = await timed(CALLS, () => rawGet(info.port, token, '/api/sessions'));
  const rss = rssMb(transport.pid);
  await client.close();

  console.log(
    `MCP server start (spawn → first list_sessions answered, ${SESSIONS} sessions): p50 ${ms(pct(starts, 50))}, max ${ms(Math.max(...starts))}; a bare \`node -e 0\` p50 ${ms(pct(nodeBaseline, 50))}`,
  );
  console.log(
    `list_sessions through MCP: p50 ${ms(pct(tool, 50))}, p95 ${ms(pct(tool, 95))} over ${CALLS} calls`,
  );
  console.log(
    `GET /api/sessions raw with the session credential: p50 ${ms(pct(raw, 50))}, p95 ${ms(pct(raw, 95))}; with the token: p50 ${ms(pct(rawToken, 50))} (the credential check costs ${ms(pct(raw, 50) - pct(rawToken, 50))})`,
  );
  console.log(
    `MCP over the raw call: ${(pct(tool, 50) / pct(raw, 50)).toFixed(2)}× at p50 (+${ms(pct(tool, 50) - pct(raw, 50))})`,
  );
  console.log(`memory of one \`baton mcp\` (one per running session): ${rss.toFixed(0)} MB RSS`);
} finally {
  if (supervisorPid !== undefined) await endProcess(supervisorPid, undefined, supervisorStarted);
  try {
    for (const line of execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n')) {
      if (line.includes(home) || line.includes('host-main.js ' + home))
        process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    }
  } catch {}
  rmSync(root, { recursive: true, force: true });
}
