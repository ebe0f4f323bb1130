/**
 * Baton's MCP endpoint in the supervisor (decision 365), driven by the MCP SDK's own streamable
 * HTTP client as a session's agent reaches it: the session's own credential as the bearer opens
 * its tools, acting as that session only; the user's token, no bearer, a forged or revoked
 * credential are refused; a supervisor restarted on its port serves the next call; and a
 * credential an agent prints never reaches the session's log, which other sessions read.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { credentialPath } from '../../src/mcp/credentials.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const LONG = { sleep: 600_000 };

function endpoint(): URL {
  const { port } = JSON.parse(readFileSync(join(t.home, 'supervisor.json'), 'utf8')) as { port: number };
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

function credentialOf(sessionId: string): string {
  return readFileSync(credentialPath(t.home, sessionId), 'utf8').trim();
}

/** An MCP client of the endpoint presenting `bearer`, as an agent's is configured. */
async function connect(bearer: string | undefined): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(endpoint(), {
    requestInit: { headers: bearer === undefined ? {} : { Authorization: `Bearer ${bearer}` } },
  });
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as { text?: string }[];
  return { text: content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
}

async function dispatch(name: string, steps: unknown[]): Promise<SessionView> {
  await t.ok(['dispatch', `work of ${name}`, '--name', name, '--script', t.script(steps)], { cwd: repo });
  return t.waitForState(name, 'working');
}

/** The raw answer of the endpoint to one initialize request, as any local process could send it. */
async function rawInitialize(
  bearer: string | undefined,
  method = 'POST',
): Promise<{ status: number; text: string }> {
  const response = await fetch(endpoint(), {
    method,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
    ...(method === 'POST'
      ? {
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-06-18',
              capabilities: {},
              clientInfo: { name: 'x', version: '1' },
            },
          }),
        }
      : {}),
  });
  return { status: response.status, text: await response.text() };
}

describe("the supervisor's MCP endpoint", () => {
  it('serves a session’s tools with its own credential, acting as that session', async () => {
    const a = await dispatch('alpha', [LONG]);
    await dispatch('beta', [LONG]);
    const mcp = await connect(credentialOf(a.id));
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toContain('ask_user');
    const list = await call(mcp, 'list_sessions');
    expect(list.isError).toBe(false);
    expect(list.text).toMatch(/alpha.*\(you\)/);
    expect(list.text).toContain('beta');
    const recorded = await call(mcp, 'record_decision', { title: 'keep onChange', text: 'callers use it' });
    expect(recorded.text).toMatch(/decision \d+ by alpha: keep onChange/);
    const { records } = await t.client().call('GET /api/mcp/decisions');
    expect(records).toEqual([
      expect.objectContaining({ title: 'keep onChange', author: { sessionId: a.id, name: 'alpha' } }),
    ]);
  });

  it('ask_user over HTTP: the session needs input, and the reply is the tool’s result', async () => {
    const a = await dispatch('alpha', [LONG]);
    const mcp = await connect(credentialOf(a.id));
    const answer = call(mcp, 'ask_user', { question: 'Which database?' });
    expect((await t.waitForState('alpha', 'needs_input')).reason).toEqual({
      kind: 'question',
      text: 'Which database?',
    });
    await t.ok(['reply', 'alpha', 'SQLite']);
    expect(await answer).toEqual({ text: 'The user answered: SQLite', isError: false });
  });

  it('refuses the user’s token, no bearer, a forged and a revoked credential; GET has nothing to serve', async () => {
    const a = await dispatch('alpha', [LONG]);
    const b = await dispatch('beta', [LONG]);
    const token = readFileSync(join(t.home, 'token'), 'utf8').trim();
    const byToken = await rawInitialize(token);
    expect(byToken.status).toBe(401);
    expect(byToken.text).toContain("takes a session's own credential only");
    expect((await rawInitialize(undefined)).status).toBe(401);
    // Alpha's secret under beta's name is no credential at all.
    expect((await rawInitialize(credentialOf(a.id).replace(a.id, b.id))).status).toBe(401);
    expect((await rawInitialize(credentialOf(a.id))).status).toBe(200);
    expect((await rawInitialize(credentialOf(a.id), 'GET')).status).toBe(405);
    const old = credentialOf(a.id);
    await t.ok(['done', 'alpha']);
    const revoked = await rawInitialize(old);
    expect(revoked.status).toBe(401);
    expect(revoked.text).toContain(
      'Session alpha has ended (completed): its Baton credential was revoked with it.',
    );
  });

  it('a client made before a supervisor restart is served after it, on the same port', async () => {
    const a = await dispatch('alpha', [LONG]);
    const before = endpoint().port;
    const mcp = await connect(credentialOf(a.id));
    expect((await call(mcp, 'list_sessions')).isError).toBe(false);
    await t.ok(['daemon', 'stop']);
    await t.ok(['daemon', 'start']);
    expect(endpoint().port).toBe(before);
    const after = await call(mcp, 'list_sessions');
    expect(after.isError).toBe(false);
    expect(after.text).toMatch(/alpha.*\(you\)/);
  });

  it('a supervisor stopping under a waiting ask_user answers it first: ask again (decision 365)', async () => {
    const a = await dispatch('alpha', [LONG]);
    const mcp = await connect(credentialOf(a.id));
    const answer = call(mcp, 'ask_user', { question: 'Which port?' }).then(
      (result) => ({ failed: result.isError, text: result.text }),
      (error: unknown) => ({ failed: true, text: String(error) }),
    );
    await t.waitForState('alpha', 'needs_input');
    await t.ok(['daemon', 'stop']);
    expect(await answer).toEqual({
      failed: true,
      text: "Baton's supervisor is restarting, which ended this wait for the user's answer. Call ask_user again with the same question to wait for it.",
    });
    // The session waits on, for its agent to ask again or the user to reply.
    await t.ok(['daemon', 'start']);
    expect((await t.waitForState('alpha', 'needs_input')).state).toBe('needs_input');
  });

  it('the credential in the agent’s environment never reaches the session’s log', async () => {
    const a = await dispatch('alpha', [{ run: 'echo "mine: $BATON_SESSION_MCP_TOKEN"' }, LONG]);
    const credential = credentialOf(a.id);
    const output = await t.waitForEvent(
      'alpha',
      (e) => e.type === 'tool.finished' && JSON.stringify(e).includes('mine: '),
    );
    expect(JSON.stringify(output)).toContain('mine: [REDACTED:baton-credential]');
    expect(await t.ok(['logs', 'alpha', '--json'])).not.toContain(credential);
  });
});
