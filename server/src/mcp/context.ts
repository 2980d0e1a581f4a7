import { STATUS_CODES } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type z, ZodError } from 'zod';
import { AppError, UnauthorizedError } from '@planwarden/engine/core/errors';
import type { Logger } from '@planwarden/engine/core/logger';
import { authorizeRoute } from '../auth/policy';
import type { Principal, RequestContext } from '../http/request-context';
import type { Policy, RouteDef } from '../http/route';
import type { ServerServices } from '../services';

/** What the MCP tools, resources and prompts may call: the same services the HTTP routes get. */
export interface McpDeps {
  readonly services: ServerServices;
  readonly log: Logger;
  /** The HTTP API's routes: each tool takes the policy of the route it mirrors from here. */
  readonly routes: readonly RouteDef[];
}

/**
 * The policy of the HTTP route a tool mirrors, e.g. `policyOf(deps, 'GET /jobs/:job_id')`, so a
 * tool can never drift from its route's role. Throws at startup when no such route exists.
 */
export function policyOf(deps: Pick<McpDeps, 'routes'>, mirrors: string): Policy {
  const [method, path] = mirrors.split(' ');
  const route = deps.routes.find((r) => r.method === method.toLowerCase() && r.path === path);
  if (!route) throw new Error(`MCP: no HTTP route ${mirrors} to take a policy from`);
  return route.policy;
}

/** The part of the SDK's per-request `extra` we read: the auth info our endpoint attached. */
interface AuthCarrier {
  readonly authInfo?: AuthInfo;
}

/**
 * The AuthInfo the endpoint attaches to every HTTP request it hands to a transport (`req.auth`);
 * the SDK passes it to each tool call as `extra.authInfo`. The raw credential is never copied.
 */
export function authInfoFor(principal: Principal, requestId: string, ip: string | null): AuthInfo {
  return {
    token: '',
    clientId: principal.keyId ?? principal.userId ?? principal.kind,
    scopes: principal.role ? [principal.role] : [],
    extra: { principal, requestId, ip },
  };
}

/**
 * Builds the RequestContext of one MCP call from the principal the endpoint resolved for the
 * HTTP request that carried it (orgId from the principal only, as the HTTP routes), after the
 * HTTP routes' own check `authorizeRoute` with `policy` (org exists, not locked → 423, active
 * membership and 2FA policy for sessions, effective role = lower of the session's role claim and
 * its current membership role); the context carries that effective principal. Throws UnauthorizedError (no principal, which
 * the endpoint never lets happen), ForbiddenError, NotFoundError or LockedError.
 */
export async function mcpContext(deps: McpDeps, extra: AuthCarrier, policy: Policy): Promise<RequestContext> {
  const carried = extra.authInfo?.extra as { principal?: Principal; requestId?: string; ip?: string | null } | undefined;
  if (!carried?.principal) throw new UnauthorizedError('Missing credentials: send X-API-Key');
  // The tool runs as the effective principal: a session at the lower of its role claim and its
  // membership's current role, re-read on every call (the MCP session may outlive a demotion).
  const principal = await authorizeRoute(carried.principal, { policy }, {}, deps.services.engine.stores);
  return {
    principal,
    orgId: principal.orgId ?? '',
    requestId: carried?.requestId ?? '',
    log: deps.log,
    now: deps.services.engine.now,
    engine: deps.services.engine,
    ip: carried?.ip ?? null,
  };
}

/** `404 Not Found` style prefix: the HTTP status and its reason phrase. */
export function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Error'}`;
}

/**
 * Maps an error to the message the HTTP error middleware would give, prefixed with the HTTP
 * status and reason phrase (`404 Not Found: Resource not found`): AppError → its status and
 * extra fields; ZodError → 422; anything else → 500, logged, never echoed.
 */
export function describeError(error: unknown, log: Logger, requestId: string): { status: number; detail: string; extra: Record<string, unknown> } {
  if (error instanceof AppError) return { status: error.status, detail: error.message, extra: error.extra };
  if (error instanceof ZodError) {
    return { status: 422, detail: error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '), extra: {} };
  }
  log.error({ err: error, request_id: requestId, transport: 'mcp' }, 'unhandled MCP error');
  return { status: 500, detail: 'Internal server error', extra: {} };
}

/** An MCP tool error (`isError: true`) carrying the HTTP status meaning in its text and structure. */
export function toolError(error: unknown, log: Logger, requestId: string): CallToolResult {
  const { status, detail, extra } = describeError(error, log, requestId);
  const suffix = Object.keys(extra).length > 0 ? ` ${JSON.stringify(extra)}` : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `${statusLine(status)}: ${detail}${suffix}` }],
    structuredContent: { status, detail, ...extra },
  };
}

/** A successful tool result: `text` for the model (default: the JSON), `structured` for programs. */
export function toolResult(structured: Record<string, unknown>, text?: string | string[]): CallToolResult {
  const texts = text === undefined ? [JSON.stringify(structured, null, 2)] : Array.isArray(text) ? text : [text];
  return { content: texts.map((t) => ({ type: 'text' as const, text: t })), structuredContent: structured };
}

type ToolConfig<Shape extends z.ZodRawShape> = {
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Shape;
  readonly annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
};

/**
 * Registers a tool whose handler runs with the caller's RequestContext after the role check
 * `policy` (the role of the HTTP route it mirrors). Any thrown error becomes a tool error via
 * `toolError`; arguments are validated by the SDK against `inputSchema` first.
 */
export function registerGuardedTool<Shape extends z.ZodRawShape>(
  server: McpServer,
  deps: McpDeps,
  name: string,
  /** The HTTP route the tool mirrors (`'GET /jobs/:job_id'`): its policy guards the tool. */
  mirrors: string,
  config: ToolConfig<Shape>,
  run: (ctx: RequestContext, args: z.output<z.ZodObject<Shape>>) => Promise<CallToolResult>,
): void {
  const policy = policyOf(deps, mirrors);
  const handler = async (args: unknown, extra: AuthCarrier): Promise<CallToolResult> => {
    const requestId = (extra.authInfo?.extra?.requestId as string | undefined) ?? '';
    try {
      const ctx = await mcpContext(deps, extra, policy);
      return await run(ctx, args as z.output<z.ZodObject<Shape>>);
    } catch (error) {
      return toolError(error, deps.log, requestId);
    }
  };
  // The SDK infers the callback's argument type from `inputSchema`; ours is checked by `run`'s signature.
  server.registerTool(name, config, handler as never);
}
