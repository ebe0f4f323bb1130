/**
 * The mcp domain's second face: what `baton mcp` runs in the agent's own process — the MCP tools
 * (server.ts), the stdio transport that refuses one oversized message instead of closing
 * (stdio.ts), and the session's credential and door read from the files the supervisor minted
 * (credentials.ts). It is apart from index.ts because that face carries the supervisor's side
 * (`McpService`), whose workspace events would be built at every start of every agent's
 * `baton mcp` for nothing (decision 385).
 */
export { createBatonMcpServer, type BatonApi, type BatonMcpOptions } from './server.js';
export { LineLimitedStdioTransport } from './stdio.js';
export { readCredentialFile, readDoorAddress } from './credentials.js';
