/**
 * Baton's MCP server for agents. Its face:
 * - `createBatonMcpServer` (server.ts): the MCP tools, on the official SDK, calling the
 *   supervisor's API with the typed client — what `baton mcp` serves on stdio;
 * - `McpService` (service.ts): the supervisor's side of those calls;
 * - credentials.ts: each session's own credential, minted per run of its agent and revoked when it ends.
 */
export { McpService, type McpSessions, type McpServiceOptions, type McpWorkspace } from './service.js';
export {
  announceSupervisorPort,
  checkCredential,
  credentialPath,
  doorPath,
  readDoorAddress,
  isSessionCredential,
  mintCredential,
  readCredentialFile,
  revokeCredential,
  type CredentialCheck,
} from './credentials.js';
export { endMcpCalls, MCP_HTTP_PATH, MCP_TOKEN_VARIABLE, mcpErrorResponse, serveMcpRequest } from './http.js';
export type { BatonApi } from './server.js';
export type { EventFollower } from './ask.js';
