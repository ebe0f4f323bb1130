/**
 * A scripted model server for end-to-end tests of the real `claude` and `codex` binaries: one
 * process-local HTTP server on 127.0.0.1 with a fake Anthropic Messages endpoint
 * (`POST /v1/messages`), a fake OpenAI Responses endpoint (`POST /v1/responses`), a fake Gemini
 * API (`…:streamGenerateContent`, for Gemini CLI) and a fake OpenAI-compatible Chat Completions
 * endpoint (`POST /v1/chat/completions`, for opencode). Replies come
 * from scenarios (see scenario.ts); every request is recorded for assertions.
 *
 *     const server = await startModelServer([
 *       { prompt: 'add a file', steps: [
 *         { tools: [{ name: 'Write', input: { file_path: 'a.txt', content: 'a\n' } }] },  // claude
 *         { text: 'Done.' },
 *       ] },
 *     ]);
 *     const ws = createWorkspace();
 *     const env = claudeEnv({ url: server.url, home: ws.home });   // or codexEnv(...)
 *     // run `claude` (bundledClaudePath()) / `codex` (installedCodexPath()) with env, cwd ws.repo
 *     await server.close(); ws.remove();
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { anthropicConversation, anthropicError, anthropicFrames, MessagesRequest } from './anthropic.js';
import { openaiConversation, openaiError, openaiFrames, ResponsesRequest } from './openai.js';
import {
  GenerateRequest,
  geminiConversation,
  geminiError,
  geminiFrames,
  geminiModelOf,
  geminiSideReply,
} from './gemini.js';
import { ChatRequest, chatConversation, chatError, chatFrames, isChatSideRequest } from './chat.js';
import { DEFAULT_USAGE, selectStep, type Conversation, type Scenario, type Step } from './scenario.js';

export type { Scenario, Step, ToolCall } from './scenario.js';
export { createWorkspace, type Workspace } from './workspace.js';
export {
  anthropicWindowHeaders,
  codexWindowHeaders,
  usageLimitStep,
  type WindowState,
  type WindowsState,
} from './limits.js';
export {
  claudeEnv,
  codexEnv,
  geminiEnv,
  opencodeEnv,
  installedGeminiPath,
  installedOpencodePath,
  bundledClaudePath,
  installedCodexPath,
  realAgentsEnv,
  type AgentEnvOptions,
} from './env.js';

export interface RecordedRequest {
  api: 'anthropic' | 'openai' | 'gemini' | 'chat';
  /** The parsed JSON body, as the CLI sent it. */
  body: unknown;
  headers: IncomingMessage['headers'];
  /** The latest real user prompt the server found in the conversation. */
  prompt: string;
  /** The matched scenario's `prompt`, if any. */
  scenario: string | undefined;
  stepIndex: number;
  /** The whole request serialized, for "did the model see X" checks. */
  text: string;
  /** When the reply started (ms since the epoch), after any scripted delay. */
  answeredAt?: number;
  /** The usage the reply reported to the CLI, once it was sent in full (not for an error). */
  served?: { input: number; output: number };
}

export interface ModelServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:PORT`. */
  url: string;
  readonly requests: RecordedRequest[];
  /**
   * Requests the server could not answer as scripted: a bug in the fake, a prompt no scenario
   * matches, or a step past a scenario's end. Each was still answered (with "OK."), so the CLI
   * carries on and the test must look here: `assertClean()` does.
   */
  readonly failures: string[];
  /** Throws, naming every failure since the last call (and forgetting them), if there were any. */
  assertClean(): void;
  /** Requests for one scenario, in arrival order. */
  requestsFor(prompt: string): RecordedRequest[];
  close(): Promise<void>;
}

export async function startModelServer(scenarios: readonly Scenario[]): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const failures: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      failures.push(`${req.method} ${req.url}: ${String(error)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `model server bug: ${String(error)}` } }));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'HEAD' || req.method === 'GET') {
      // Health probes and model listings: answer politely, with nothing to offer.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.method === 'GET' ? JSON.stringify({ object: 'list', data: [], models: [] }) : undefined);
      return;
    }
    const raw = await readBody(req);
    const json: unknown = JSON.parse(raw);
    if (path === '/v1/messages') {
      const body = MessagesRequest.parse(json);
      await reply(req, res, 'anthropic', json, raw, anthropicConversation(body), (step) =>
        anthropicFrames(step, body.model),
      );
      return;
    }
    if (path === '/v1/responses') {
      const body = ResponsesRequest.parse(json);
      await reply(req, res, 'openai', json, raw, openaiConversation(body), (step) =>
        openaiFrames(step, body.model),
      );
      return;
    }
    if (path.endsWith(':streamGenerateContent')) {
      const body = GenerateRequest.parse(json);
      const model = geminiModelOf(path);
      await reply(req, res, 'gemini', json, raw, geminiConversation(body), (step) =>
        geminiFrames(step, model),
      );
      return;
    }
    if (path.endsWith(':generateContent')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(geminiSideReply());
      return;
    }
    if (path === '/v1/chat/completions') {
      const body = ChatRequest.parse(json);
      if (isChatSideRequest(body)) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const frame of chatFrames({ text: 'Scripted session' }, body.model)) res.write(frame);
        res.end();
        return;
      }
      await reply(req, res, 'chat', json, raw, chatConversation(body), (step) =>
        chatFrames(step, body.model),
      );
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no fake for ${req.method} ${path}` } }));
  }

  async function reply(
    req: IncomingMessage,
    res: ServerResponse,
    api: RecordedRequest['api'],
    body: unknown,
    text: string,
    conversation: Conversation,
    frames: (step: Step) => string[],
  ): Promise<void> {
    const { scenario, stepIndex, step } = selectStep(scenarios, conversation);
    if (scenario === undefined)
      failures.push(`${api} request matched no scenario; its prompt: ${JSON.stringify(conversation.prompt)}`);
    else if (stepIndex >= scenario.steps.length) {
      failures.push(
        `${api} request for step ${stepIndex + 1} of scenario ${JSON.stringify(scenario.prompt)}, which has ${scenario.steps.length}`,
      );
    }
    const recorded: RecordedRequest = {
      api,
      body,
      headers: req.headers,
      prompt: conversation.prompt,
      scenario: scenario?.prompt,
      stepIndex,
      text,
    };
    requests.push(recorded);
    if (step.delayMs !== undefined) await delay(step.delayMs);
    if (res.destroyed) return;
    recorded.answeredAt = Date.now();
    if (step.error !== undefined) {
      const message = step.error.message ?? `scripted error ${step.error.status}`;
      res.writeHead(step.error.status, { 'content-type': 'application/json', ...step.headers });
      res.end(step.error.body ?? errorBody(api, step.error.status, message));
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      ...step.headers,
    });
    for (const frame of frames(step)) res.write(frame);
    res.end();
    recorded.served = { ...(step.usage ?? DEFAULT_USAGE) };
  }

  function delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failures,
    assertClean: () => {
      const seen = failures.splice(0);
      if (seen.length > 0)
        throw new Error(`the model server was asked for what no scenario scripts:\n  ${seen.join('\n  ')}`);
    },
    requestsFor: (prompt) => requests.filter((r) => r.scenario === prompt),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function errorBody(api: RecordedRequest['api'], status: number, message: string): string {
  switch (api) {
    case 'anthropic':
      return anthropicError(status, message);
    case 'openai':
      return openaiError(status, message);
    case 'gemini':
      return geminiError(status, message);
    case 'chat':
      return chatError(status, message);
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
