import { z } from 'zod';
import type { Policy, RouteDef } from './route';

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { title: string; version: string; description: string };
  readonly servers: { url: string }[];
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, unknown>;
  readonly security: Record<string, string[]>[];
  readonly tags: { name: string }[];
}

/** The three ways to present a credential (identity-api.md "Authentication"). */
const SECURITY_SCHEMES = {
  ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'A service key, or the bootstrap key (auth.api_key).' },
  ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key', description: 'The same key as a query parameter (for clients that cannot set headers).' },
  SessionCookie: { type: 'apiKey', in: 'cookie', name: 'mcp_session', description: 'The session cookie set by POST /auth/session (sign-in).' },
} as const;
const ANY_CREDENTIAL = Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] as string[] }));

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request (an unknown query parameter or filter value, or a call this principal cannot make)',
  401: 'No credential, or an invalid one',
  403: "The role, the IP allowlist or the organization's 2FA policy forbids the call",
  404: "Not found (also another organization's resource)",
  413: 'The request body exceeds the size limit',
  415: 'The request body is not JSON',
  422: 'The request failed validation',
  423: 'The organization is locked',
  429: 'Too many attempts',
};

const POLICY_NOTES: Record<Policy, string> = {
  public: 'Public: no credential.',
  viewer: "Needs the viewer role (or higher) in the caller's organization.",
  member: "Needs the member role (or higher) in the caller's organization.",
  admin: "Needs the admin role (or higher) in the caller's organization.",
  owner: "Needs the owner role in the caller's organization.",
  superadmin: 'Superadmins only.',
  human: 'Needs a signed-in user session (not an API key).',
  authenticated: 'Any credential.',
};

/** `/jobs/:job_id` → `/jobs/{job_id}` (Express 5 `:name` and `*name` segments). */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function pathParameterNames(expressPath: string): string[] {
  return [...expressPath.matchAll(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

/** A zod schema as the JSON Schema of what a client sends (zod 4 `z.toJSONSchema`, io `input`). */
function inputSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function queryParameters(query: z.ZodObject | undefined): JsonSchema[] {
  if (!query) return [];
  const object = inputSchema(query);
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema,
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  }));
}

function requestBody(def: RouteDef): JsonSchema | undefined {
  if (def.body === 'text') {
    return {
      required: true,
      description: 'The raw input (plan JSON or text, configuration, unified diff): UTF-8, UTF-8 with BOM or UTF-16.',
      content: {
        'text/plain': { schema: { type: 'string' } },
        'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
      },
    };
  }
  if (def.body !== 'json') return undefined;
  const schema = def.requestBody ? inputSchema(def.requestBody) : { type: 'object' };
  return {
    required: def.requestBody ? !def.requestBody.safeParse({}).success : false,
    content: { 'application/json': { schema } },
  };
}

/** The error statuses a route can answer from its declaration alone (the spec's tables give more). */
function errorStatuses(def: RouteDef): number[] {
  const statuses = new Set<number>();
  const params = pathParameterNames(def.path);
  if (def.policy !== 'public') statuses.add(401).add(403);
  if (def.policy === 'human') statuses.add(def.nonHumanStatus ?? 400);
  if (['viewer', 'member', 'admin', 'owner'].includes(def.policy)) statuses.add(423);
  if (def.query) statuses.add(400).add(422);
  if (params.length > 0) statuses.add(404);
  if (def.body === 'json') statuses.add(413).add(415).add(422);
  if (def.body === 'text') statuses.add(413).add(422);
  return [...statuses].sort((a, b) => a - b);
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['detail'],
  additionalProperties: true,
  properties: { detail: { type: 'string', description: 'What went wrong, for a person.' } },
};

function errorResponse(status: number): Record<string, unknown> {
  return { description: ERROR_DESCRIPTIONS[status], content: { 'application/json': { schema: ERROR_SCHEMA } } };
}

function responses(def: RouteDef): Record<string, unknown> {
  const success =
    def.method === 'get'
      ? { '200': { description: 'OK' } }
      : { '2XX': { description: "Success: 200 OK, 201 Created, 202 Accepted or 204 No Content, as the spec's table for this endpoint gives" } };
  // Inlined rather than `$ref`s: each operation reads on its own, and the browser references have
  // nothing to resolve (Swagger UI resolves OpenAPI 3.1 references slowly).
  const errors = Object.fromEntries(errorStatuses(def).map((status) => [String(status), errorResponse(status)]));
  return { ...success, ...errors };
}

/** The tag grouping an operation: its first fixed path segment (`/{namespace}/report` → `report`). */
function tagFor(path: string): string {
  return path.split('/').find((seg) => seg && !seg.startsWith(':') && !seg.startsWith('*')) ?? 'api';
}

function operationId(def: RouteDef): string {
  const words = def.path
    .split('/')
    .filter(Boolean)
    .map((seg) => seg.replace(/^[:*]/, 'by_').replace(/[^A-Za-z0-9_]/g, '_'));
  return [def.method, ...words].join('_');
}

function operation(def: RouteDef): Record<string, unknown> {
  const body = requestBody(def);
  const parameters = [
    ...pathParameterNames(def.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...queryParameters(def.query),
  ];
  return {
    operationId: operationId(def),
    tags: [tagFor(def.path)],
    description: POLICY_NOTES[def.policy],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: responses(def),
    security: def.policy === 'public' ? [] : ANY_CREDENTIAL,
  };
}

/**
 * The OpenAPI 3.1 document of the HTTP API, generated from the route declarations (`allRoutes()`):
 * one operation per route, path parameters from the Express path, query parameters from the
 * route's `query` zod object, the JSON request body from its `requestBody` zod schema (JSON
 * Schema 2020-12 via zod 4's `z.toJSONSchema`, what a client sends), the security schemes
 * (X-API-Key header, `api_key` query, `mcp_session` cookie) and the statuses the declaration
 * implies, errors as `{detail}`. `serverUrl` is the API base (`/api/v1`). Carries no secrets.
 * Throws Error when two routes would give the same operation (a declaration bug).
 */
export function buildOpenApiDocument(routes: readonly RouteDef[], info: { version: string; serverUrl: string }): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const def of routes) {
    const key = openApiPath(def.path);
    const item = (paths[key] ??= {});
    if (item[def.method]) throw new Error(`two routes declare ${def.method.toUpperCase()} ${def.path}`);
    item[def.method] = operation(def);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Planwarden API',
      version: info.version,
      description:
        'Security analysis for infrastructure-as-code. Errors are `{"detail": "..."}` with the status the spec gives; ' +
        'every response carries `X-Request-ID`. The MCP endpoint (streamable HTTP and SSE) is at `/mcp`.',
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: { securitySchemes: SECURITY_SCHEMES, schemas: { Error: ERROR_SCHEMA } },
    security: ANY_CREDENTIAL,
    tags: [...new Set(routes.map((r) => tagFor(r.path)))].map((name) => ({ name })),
  };
}
