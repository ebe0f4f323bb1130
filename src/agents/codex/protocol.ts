/**
 * The parts of the `codex app-server` protocol (v2, JSON-RPC over stdio) Baton uses, as zod
 * schemas written from `codex app-server generate-ts`. Loose objects: newer servers add fields.
 */
import { z } from 'zod';

const id = z.union([z.string(), z.number()]);

/** One line from the server: a request to us, a notification, or a response. */
export const IncomingMessage = z.looseObject({
  id: id.optional(),
  method: z.string().optional(),
  params: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.looseObject({ code: z.number().optional(), message: z.string() }).optional(),
});
export type IncomingMessage = z.infer<typeof IncomingMessage>;

export const ThreadResponse = z.looseObject({
  thread: z.looseObject({ id: z.string() }),
  model: z.string().optional(),
});
export const TurnResponse = z.looseObject({ turn: z.looseObject({ id: z.string() }) });

export const TurnError = z.looseObject({
  message: z.string(),
  codexErrorInfo: z.unknown().optional(),
  additionalDetails: z.string().nullish(),
});

const Turn = z.looseObject({
  id: z.string(),
  status: z.enum(['completed', 'interrupted', 'failed', 'inProgress']),
  error: TurnError.nullish(),
});

const FileUpdateChange = z.looseObject({ path: z.string(), diff: z.string().optional() });

export const ThreadItem = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('agentMessage'), id: z.string(), text: z.string() }),
  z.looseObject({
    type: z.literal('reasoning'),
    id: z.string(),
    summary: z.array(z.string()),
    content: z.array(z.string()),
  }),
  z.looseObject({
    type: z.literal('commandExecution'),
    id: z.string(),
    command: z.string(),
    status: z.enum(['inProgress', 'completed', 'failed', 'declined']),
    aggregatedOutput: z.string().nullish(),
    exitCode: z.number().int().nullish(),
  }),
  z.looseObject({
    type: z.literal('fileChange'),
    id: z.string(),
    changes: z.array(FileUpdateChange),
    status: z.enum(['inProgress', 'completed', 'failed', 'declined']),
  }),
  z.looseObject({
    type: z.literal('mcpToolCall'),
    id: z.string(),
    server: z.string(),
    tool: z.string(),
    status: z.string(),
  }),
  z.looseObject({ type: z.literal('webSearch'), id: z.string(), query: z.string() }),
]);
export type ThreadItem = z.infer<typeof ThreadItem>;

const TokenUsageBreakdown = z.looseObject({
  inputTokens: z.number(),
  cachedInputTokens: z.number(),
  outputTokens: z.number(),
});
export type TokenUsageBreakdown = z.infer<typeof TokenUsageBreakdown>;

/** One of the account's rolling windows (`resetsAt` in seconds since the epoch). */
export const RateLimitWindow = z.looseObject({
  usedPercent: z.number(),
  windowDurationMins: z.number().nullish(),
  resetsAt: z.number().nullish(),
});
export type RateLimitWindow = z.infer<typeof RateLimitWindow>;

/** `account/rateLimits/read`'s answer: the account's windows as they stand (a ChatGPT login). */
export const RateLimitsReadResponse = z.looseObject({
  rateLimits: z.looseObject({ primary: RateLimitWindow.nullish(), secondary: RateLimitWindow.nullish() }),
});

export const Notifications = {
  'turn/started': z.looseObject({ threadId: z.string(), turn: Turn }),
  'turn/completed': z.looseObject({ threadId: z.string(), turn: Turn }),
  'item/started': z.looseObject({
    threadId: z.string(),
    turnId: z.string(),
    item: z.looseObject({ type: z.string() }),
  }),
  'item/completed': z.looseObject({
    threadId: z.string(),
    turnId: z.string(),
    item: z.looseObject({ type: z.string() }),
  }),
  'thread/tokenUsage/updated': z.looseObject({
    threadId: z.string(),
    /** `last`: the latest response's own usage, which matches it to the early report of that response. */
    tokenUsage: z.looseObject({ total: TokenUsageBreakdown, last: TokenUsageBreakdown.optional() }),
  }),
  /** One model response's own usage, as soon as it completes (an experimental event: `experimentalRawEvents`). */
  'rawResponse/completed': z.looseObject({
    threadId: z.string(),
    responseId: z.string(),
    usage: TokenUsageBreakdown.nullish(),
  }),
  error: z.looseObject({ error: TurnError, willRetry: z.boolean() }),
  /** An MCP server of the thread is starting, ready or failed (`status`). */
  'mcpServer/startupStatus/updated': z.looseObject({
    name: z.string(),
    status: z.string(),
    error: z.string().nullish(),
  }),
  'account/rateLimits/updated': z.looseObject({
    rateLimits: z.looseObject({ primary: RateLimitWindow.nullish(), secondary: RateLimitWindow.nullish() }),
  }),
} as const;

export const CommandApprovalParams = z.looseObject({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  reason: z.string().nullish(),
  command: z.string().nullish(),
});

export const FileChangeApprovalParams = z.looseObject({
  threadId: z.string(),
  turnId: z.string(),
  itemId: z.string(),
  reason: z.string().nullish(),
  grantRoot: z.string().nullish(),
});

export type ApprovalDecisionWire = 'accept' | 'decline' | 'cancel';
