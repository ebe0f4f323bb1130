/**
 * Baton's MCP server: the workspace as tools for an agent, on the official MCP SDK. Every tool is
 * a call of the supervisor's API with the typed client, made with the session's own credential
 * (inside Baton) or the user's token (outside): the supervisor decides what the caller may do.
 * Arguments are checked by the SDK against the zod shapes below; a refused or failed call is a
 * tool error whose text says why, never a crash of the server.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiClient } from '../api/client.js';
import { errorMessage } from '../shared/errors.js';
import { waitForAnswer, type EventFollower } from './ask.js';
import { recordLine, searchResults, sessionList, summary, transcript } from './format.js';

export interface BatonApi extends EventFollower, Pick<ApiClient, 'call'> {}

export interface BatonMcpOptions {
  /** A client of the running supervisor; asked again for every call, so a restarted supervisor is found. */
  connect(): Promise<BatonApi>;
  version: string;
  /**
   * Aborted when the process serving the tools is about to stop (the supervisor's endpoint): a
   * call waiting on the user ends then with an error that says to ask again, instead of being cut.
   */
  stopping?: AbortSignal | undefined;
}

const session = z.string().trim().min(1).max(200).describe('A session: its name, id or id prefix');
const text = (what: string, max = 32_000) => z.string().trim().min(1, `${what} is empty`).max(max);

export function createBatonMcpServer(options: BatonMcpOptions): McpServer {
  const server = new McpServer(
    { name: 'baton', version: options.version },
    {
      instructions:
        'Baton runs several coding agents in parallel on one repository, each in its own git worktree. These tools show the other sessions and let you ' +
        'ask your user, message another session, search what every session did, and record decisions, notes and tasks. You act only as your own session.',
    },
  );
  const connect = (): Promise<BatonApi> => options.connect();
  let me: string | null | undefined;
  const whoAmI = async (api: BatonApi): Promise<string | undefined> => {
    me ??= (await api.call('GET /api/mcp/me')).session?.id ?? null;
    return me ?? undefined;
  };

  tool(
    server,
    'list_sessions',
    'The sessions of the workspace: name, agent, state, branch and task (yours marked).',
    { project: z.string().optional().describe('Only this project (name or root)') },
    async ({ project }) => {
      const api = await connect();
      const { sessions } = await api.call('GET /api/sessions', { query: { project } });
      return sessionList(sessions, await whoAmI(api));
    },
  );

  tool(
    server,
    'read_session',
    "A session's summary (task, state, last words, files changed), and with transcript=true its transcript: messages, reasoning and tool calls, newest last.",
    {
      session,
      transcript: z.boolean().default(false),
      limit: z.number().int().min(1).max(500).default(60).describe('Transcript events, newest'),
    },
    async (args) => {
      const api = await connect();
      const peek = await api.call('GET /api/sessions/:ref/peek', { params: { ref: args.session } });
      const head = summary(peek, await whoAmI(api));
      if (!args.transcript) return head;
      const page = await api.call('GET /api/sessions/:ref/transcript', {
        params: { ref: peek.session.id },
        query: { limit: args.limit },
      });
      return `${head}\n\nTranscript${page.hasMore ? ` (the last ${page.events.length} events)` : ''}:\n${transcript(page.events)}`;
    },
  );

  tool(
    server,
    'search',
    'Search what every session said, reasoned and ran (messages, reasoning, tool calls and output), newest first.',
    {
      query: text('the query', 500),
      session: session.optional().describe('Only this session'),
      limit: z.number().int().min(1).max(100).default(20),
    },
    async ({ query, session: ref, limit }) =>
      searchResults(
        await (await connect()).call('GET /api/mcp/search', { query: { q: query, session: ref, limit } }),
      ),
  );

  tool(
    server,
    'record_decision',
    'Record a decision of your work and why, for the user and the sessions after you.',
    { title: text('the title', 200), text: text('the decision') },
    async (body) => recordLine(await (await connect()).call('POST /api/mcp/decisions', { body })),
  );

  tool(
    server,
    'add_note',
    'Add a note to the workspace (something the user or other sessions should know).',
    { text: text('the note') },
    async (body) => recordLine(await (await connect()).call('POST /api/mcp/notes', { body })),
  );

  tool(
    server,
    'create_task',
    'Create a task for later work (it is not started).',
    { title: text('the title', 200), description: z.string().max(32_000).default('') },
    async (body) => recordLine(await (await connect()).call('POST /api/mcp/tasks', { body })),
  );

  tool(
    server,
    'list_tasks',
    'The tasks on the board of your repository: number, column, title and description.',
    {},
    async () => {
      const { records } = await (await connect()).call('GET /api/mcp/tasks');
      return records.length === 0 ? 'No tasks.' : records.map(recordLine).join('\n');
    },
  );

  tool(
    server,
    'ask_user',
    'Ask your user a question and wait for the answer (your session shows as needing input with the question). Use it when you cannot go on without them.',
    { question: text('the question', 8_000) },
    async ({ question }, signal) => {
      const asked = await (await connect()).call('POST /api/mcp/ask', { body: { question } });
      const stopping = options.stopping;
      const waiting = stopping === undefined ? signal : AbortSignal.any([signal, stopping]);
      try {
        return `The user answered: ${await waitForAnswer(connect, asked.sessionId, asked.after, question, waiting)}`;
      } catch (error) {
        if (stopping?.aborted !== true || signal.aborted) throw error;
        throw new Error(
          "Baton's supervisor is restarting, which ended this wait for the user's answer. Call ask_user again with the same question to wait for it.",
        );
      }
    },
  );

  tool(
    server,
    'send_message',
    "Send a message to another session's agent. It arrives as that session's next turn: at once when it is idle, else when its running turn ends.",
    { to: session, text: text('the message') },
    async (body) => {
      const { to, delivery } = await (await connect()).call('POST /api/mcp/messages', { body });
      const when =
        delivery === 'now'
          ? 'it is taking it now'
          : delivery === 'after_turn'
            ? 'it gets it when its current turn ends'
            : 'it gets it after its user answers its question';
      return `Sent to ${to.name}; ${when}.`;
    },
  );
  return server;
}

type Shape = Record<string, z.ZodType>;

/** Registers a tool whose handler answers text; errors become tool errors with their message. */
function tool<S extends Shape>(
  server: McpServer,
  name: string,
  description: string,
  shape: S,
  run: (args: z.output<z.ZodObject<S>>, signal: AbortSignal) => Promise<string>,
): void {
  server.registerTool(name, { description, inputSchema: shape }, (async (
    args: z.output<z.ZodObject<S>>,
    extra: { signal: AbortSignal },
  ): Promise<CallToolResult> => {
    try {
      return { content: [{ type: 'text', text: await run(args, extra.signal) }] };
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: errorMessage(error) }] };
    }
  }) as never);
}
