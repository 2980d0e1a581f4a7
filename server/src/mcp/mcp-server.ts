import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerClientLedTools } from './client-led-tools';
import type { McpDeps } from './context';
import { registerFindingsTools } from './findings-tools';
import { registerReviewPrompt, SERVER_INSTRUCTIONS } from './review-prompt';
import { registerRulesetResources } from './rules-resources';
import { registerServerSideTools } from './server-side-tools';

/**
 * One MCP server (tools, ruleset resources, review prompt) for one session. The SDK binds a
 * server to one transport, so the endpoint builds one per session; all state lives in the store.
 */
export function createPlanwardenMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer({ name: 'planwarden', title: 'Planwarden', version: '0.1.0' }, { instructions: SERVER_INSTRUCTIONS });
  registerClientLedTools(server, deps);
  registerServerSideTools(server, deps);
  registerFindingsTools(server, deps);
  registerRulesetResources(server, deps);
  registerReviewPrompt(server);
  return server;
}
