import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@planwarden/engine/core/logger';
import { clientIp } from '../auth/ip';
import type { Principal } from '../http/request-context';
import type { RouteDef } from '../http/route';
import { INGEST_MAX_BYTES } from '../routes/ingest.schema';
import type { ServerServices } from '../services';
import { authInfoFor } from './context';
import { createPlanwardenMcpServer } from './mcp-server';
import { SessionRegistry, touch, type TrackedSession } from './session-registry';

/** Where the endpoint is mounted, and its legacy SSE paths (docs/mcp.md "Transports"). */
export const MCP_PATH = '/mcp';
export const MCP_SSE_PATH = '/mcp/sse';
export const MCP_MESSAGES_PATH = '/mcp/messages';

const IDLE_MS = 30 * 60_000;

export interface McpEndpointOptions {
  readonly services: ServerServices;
  readonly log: Logger;
  /** The HTTP API's routes (tools take their policies from the routes they mirror). */
  readonly routes: readonly RouteDef[];
  /**
   * Resolves a request's principal: the very function the HTTP API's router authenticates
   * with (X-API-Key, the `mcp_session` cookie, anonymous while auth is off). Throws
   * UnauthorizedError (401), ForbiddenError (403, ip allowlist) or a 429.
   */
  readonly authenticate: (req: Request) => Principal | Promise<Principal>;
}

export interface McpEndpoint {
  /** Express router to mount at MCP_PATH. */
  readonly router: express.Router;
  /** Closes every open session (server shutdown). */
  close(): Promise<void>;
}

/** An open session; `owner` (TrackedSession) binds it: later requests must resolve to the same principal. */
interface Session extends TrackedSession {
  readonly transport: StreamableHTTPServerTransport | SSEServerTransport;
  /** Set once admitted and connected. */
  server: McpServer | null;
  /** Its id once the handshake has given it one. */
  id: string | null;
  lastActive: number;
}

/** Identity of a principal for session binding (role excluded: a role change applies at once). */
function ownerOf(principal: Principal): string {
  return JSON.stringify([principal.kind, principal.orgId, principal.userId, principal.keyId]);
}

/** The org a principal's sessions count against: its org, or its own account when it has none. */
function orgOf(principal: Principal): string {
  return principal.orgId !== null ? `org:${principal.orgId}` : `account:${principal.userId ?? principal.keyId ?? principal.kind}`;
}

function rpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

type AuthedRequest = IncomingMessage & { auth?: AuthInfo };

/**
 * The MCP endpoint (analysis-api.md "What the service does" item 10; DESIGN.md: MCP at `/mcp`):
 * streamable HTTP on POST/GET/DELETE /mcp and the legacy HTTP+SSE transport on GET /mcp/sse (or
 * GET /mcp with `Accept: text/event-stream` and no `mcp-session-id`) + POST
 * /mcp/messages?sessionId=. Every HTTP request is authenticated with the HTTP API's
 * authenticator before its body is read (no or a bad credential: 401 from the error
 * middleware, before any MCP processing); the principal rides to each tool call as
 * `extra.authInfo`, where each tool runs the HTTP routes' policy check; a session answers only
 * to the principal that opened it (else 404). Sessions are admitted by SessionRegistry (config
 * `mcp`): a principal or org at its cap gives up its oldest idle session (which then answers 404),
 * and refuses (429) only when all of its sessions are active; no org can fill the process alone.
 */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const sessions = new Map<string, Session>();
  const forget = (session: Session) => {
    registry.remove(session);
    if (session.id !== null && sessions.get(session.id) === session) sessions.delete(session.id);
  };
  const registry = new SessionRegistry<Session>(
    () => {
      const limits = options.services.config.mcp;
      return { maxSessions: limits.max_sessions, maxPerOrg: limits.max_sessions_per_org, maxPerPrincipal: limits.max_sessions_per_principal };
    },
    (session) => {
      forget(session);
      void session.transport.close().catch(() => {});
    },
  );
  const router = express.Router();
  const deps = { services: options.services, log: options.log, routes: options.routes };
  const bodyLimit = () => Math.max(INGEST_MAX_BYTES, options.services.config.server.max_input_size_mb * 1024 * 1024) * 2 + 64 * 1024;

  const sweep = setInterval(() => {
    const cutoff = Date.now() - IDLE_MS;
    for (const session of sessions.values()) {
      if (session.open === 0 && session.lastActive < cutoff) void session.transport.close().catch(() => {});
    }
  }, 60_000);
  sweep.unref();

  const track = (session: Session, res: Response) => {
    session.lastActive = Date.now();
    touch(session);
    session.open += 1;
    res.on('close', () => {
      session.open -= 1;
      session.lastActive = Date.now();
      touch(session);
    });
  };

  const authenticateRequest = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const principal = await options.authenticate(req);
      res.locals.principal = principal;
      const ip = clientIp(req, options.services.config.server.trust_proxy);
      (req as AuthedRequest).auth = authInfoFor(principal, String(res.locals.requestId ?? ''), ip);
      next();
    } catch (error) {
      next(error);
    }
  };
  const json = (req: Request, res: Response, next: NextFunction) => express.json({ limit: bodyLimit() })(req, res, next);

  /** The caller's session, or null after answering 404 (unknown, or opened by someone else). */
  const ownSession = (id: string, res: Response): Session | null => {
    const session = sessions.get(id);
    if (!session || session.owner !== ownerOf(res.locals.principal as Principal)) {
      rpcError(res, 404, -32001, 'Session not found');
      return null;
    }
    return session;
  };

  /** A session of the caller's, not yet admitted nor connected. */
  const newSession = (transport: Session['transport'], res: Response): Session => {
    const principal = res.locals.principal as Principal;
    return { transport, server: null, owner: ownerOf(principal), org: orgOf(principal), id: null, open: 0, used: 0, lastActive: Date.now() };
  };

  const connect = async (session: Session): Promise<void> => {
    session.server = createPlanwardenMcpServer(deps);
    await session.server.connect(session.transport);
  };

  const streamable = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const id = req.get('mcp-session-id');
      if (id) {
        const session = ownSession(id, res);
        if (!session) return;
        if (!(session.transport instanceof StreamableHTTPServerTransport)) {
          rpcError(res, 400, -32000, 'Bad Request: this session uses the SSE transport');
          return;
        }
        track(session, res);
        await session.transport.handleRequest(req as AuthedRequest, res as ServerResponse, req.body);
        return;
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        rpcError(res, 400, -32000, 'Bad Request: no valid session ID provided');
        return;
      }
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          session.id = sessionId;
          sessions.set(sessionId, session);
        },
      });
      const session = newSession(transport, res);
      const refused = registry.admit(session);
      if (refused) {
        rpcError(res, refused.status, -32000, refused.message);
        return;
      }
      transport.onclose = () => forget(session);
      track(session, res);
      try {
        await connect(session);
        await transport.handleRequest(req as AuthedRequest, res as ServerResponse, req.body);
      } finally {
        // A handshake that gave no session id opened nothing: it stops counting at once.
        if (session.id === null) {
          forget(session);
          void transport.close().catch(() => {});
        }
      }
    } catch (error) {
      next(error);
    }
  };

  /** Opens a legacy SSE session; its POST endpoint is MCP_MESSAGES_PATH?sessionId=. */
  const openSse = async (_req: Request, res: Response, next: NextFunction) => {
    try {
      const transport = new SSEServerTransport(MCP_MESSAGES_PATH, res as ServerResponse);
      const session = newSession(transport, res);
      const refused = registry.admit(session);
      if (refused) {
        res.status(refused.status).json({ detail: refused.message });
        return;
      }
      session.id = transport.sessionId;
      transport.onclose = () => forget(session);
      track(session, res);
      try {
        await connect(session);
      } catch (error) {
        forget(session);
        throw error;
      }
      sessions.set(transport.sessionId, session);
    } catch (error) {
      next(error);
    }
  };

  router.post('/', authenticateRequest, json, streamable);
  // GET /mcp without a session id, asking for an event stream, is a legacy SSE client (or a
  // streamable-HTTP client falling back to it): both transports answer at /mcp (DESIGN.md).
  router.get('/', authenticateRequest, (req, res, next) =>
    !req.get('mcp-session-id') && (req.get('accept') ?? '').includes('text/event-stream') ? openSse(req, res, next) : streamable(req, res, next),
  );
  router.delete('/', authenticateRequest, streamable);
  router.get('/sse', authenticateRequest, openSse);

  router.post('/messages', authenticateRequest, json, async (req, res, next) => {
    try {
      const id = typeof req.query.sessionId === 'string' ? req.query.sessionId : '';
      const session = ownSession(id, res);
      if (!session) return;
      if (!(session.transport instanceof SSEServerTransport)) {
        rpcError(res, 400, -32000, 'Bad Request: this session uses the streamable HTTP transport');
        return;
      }
      session.lastActive = Date.now();
      touch(session);
      await session.transport.handlePostMessage(req as AuthedRequest, res as ServerResponse, req.body);
    } catch (error) {
      next(error);
    }
  });

  return {
    router,
    async close() {
      clearInterval(sweep);
      const open = registry.sessions();
      for (const s of open) forget(s);
      await Promise.all(open.map((s) => s.server?.close().catch(() => {})));
    },
  };
}
