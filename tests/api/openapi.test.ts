import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadConfig } from '../../server/src/config/config';
import { buildServer } from '../../server/src/server';
import { docsRouter } from '../../server/src/http/docs';
import { openApiPath } from '../../server/src/http/openapi';
import { healthRoutes } from '../../server/src/routes/health';
import { silentLogger } from '../../engine/src/core/logger';
import { startTestServer, type TestServer } from '../helpers/test-server';

type Doc = { openapi: string; paths: Record<string, Record<string, any>>; components: Record<string, any> };
type Layer = { route?: { path: string; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };

/** METHOD path pairs of the Express router the app mounts under /api/v1 (the router with the most routes). */
async function expressApiOperations(): Promise<string[]> {
  const config = loadConfig({ env: {}, cwd: '/nonexistent', overrides: { storage: { backend: 'memory' }, logging: { level: 'silent' } } });
  const built = await buildServer(config, { log: silentLogger });
  try {
    const routers = (built.app.router as unknown as { stack: Layer[] }).stack
      .map((layer) => layer.handle?.stack ?? [])
      .filter((stack) => stack.some((l) => l.route));
    const api = routers.sort((a, b) => b.length - a.length)[0];
    return api
      .filter((l) => l.route)
      .flatMap((l) =>
        Object.keys(l.route!.methods)
          .filter((m) => m !== '_all')
          .map((m) => `${m.toUpperCase()} ${openApiPath(l.route!.path)}`),
      );
  } finally {
    await built.mcp.close();
    built.services.identity.guard.shutdown();
    await built.store.close();
  }
}

describe('OpenAPI document (GET /api/v1/openapi.json)', () => {
  let server: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    // Auth on: the document and the docs pages are public all the same.
    server = await startTestServer({ overrides: { auth: { enabled: true } } });
    const res = await server.api('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    doc = (await res.json()) as Doc;
  });
  afterAll(async () => {
    await server.close();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('has exactly one operation per Express route under /api/v1', async () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const routes = await expressApiOperations();
    expect(routes.length).toBeGreaterThan(50);
    expect(documented.sort()).toEqual([...new Set(routes)].sort());
  });

  it('declares the request body of every JSON route from its zod schema', () => {
    const bodiless: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      // SCIM protocol bodies are RFC 7644 resources read by the SCIM service, not one zod schema.
      if (path.startsWith('/scim/v2/')) continue;
      for (const [method, op] of Object.entries(item)) {
        const json = op.requestBody?.content?.['application/json']?.schema;
        // `{type: 'object'}` alone is what a JSON route without `requestBody` gets.
        if (json && JSON.stringify(json) === '{"type":"object"}') bodiless.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(bodiless).toEqual([]);
    const login = doc.paths['/auth/session'].post.requestBody;
    expect(login.required).toBe(true);
    expect(login.content['application/json'].schema.required).toEqual(expect.arrayContaining(['email', 'password']));
    const ingest = doc.paths['/{analyzer_name}/{namespace}/ingest'].post.requestBody;
    expect(Object.keys(ingest.content)).toContain('text/plain');
  });

  it('lists path and query parameters', () => {
    const job = doc.paths['/jobs/{job_id}'].get;
    expect(job.parameters).toContainEqual({ name: 'job_id', in: 'path', required: true, schema: { type: 'string' } });
    const findings = doc.paths['/findings'].get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    expect(findings).toEqual(expect.arrayContaining(['query:status', 'query:severity', 'query:limit', 'query:offset']));
  });

  it('names the three ways to authenticate, and public routes need none', () => {
    expect(doc.components.securitySchemes).toEqual({
      ApiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      ApiKeyQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'api_key' }),
      SessionCookie: expect.objectContaining({ type: 'apiKey', in: 'cookie', name: 'mcp_session' }),
    });
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/auth/keys'].post.security).toEqual(expect.arrayContaining([{ ApiKeyHeader: [] }]));
  });

  it('gives every operation its statuses, errors as {detail}', () => {
    expect(doc.components.schemas.Error).toMatchObject({ required: ['detail'], properties: { detail: { type: 'string' } } });
    const keys = doc.paths['/auth/keys'].post.responses;
    expect(Object.keys(keys)).toEqual(expect.arrayContaining(['2XX', '401', '403', '422']));
    expect(keys['401'].content['application/json'].schema).toEqual(doc.components.schemas.Error);
    expect(Object.keys(doc.paths['/jobs/{job_id}'].get.responses)).toEqual(expect.arrayContaining(['200', '404']));
  });

  it('serves the reference pages, their assets and the landing page without a credential', async () => {
    for (const path of [
      '/api/v1/docs',
      '/api/v1/redoc',
      '/api/v1/docs/swagger-ui-bundle.js',
      '/api/v1/docs/swagger-ui.css',
      '/api/v1/redoc/redoc.standalone.js',
      '/',
    ]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
    }
    // Only the files the page loads are served from the package (not its petstore index.html).
    expect((await fetch(`${server.url}/api/v1/docs/index.html`)).status).toBe(404);
    // The API itself still needs a credential.
    expect((await server.api('/jobs')).status).toBe(401);
  });

  it('answers GET / with a landing page linking the references (where no dashboard build takes `/`)', async () => {
    const app = express().use('/', docsRouter(healthRoutes(), '/api/v1'));
    const listener = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const res = await fetch(`http://127.0.0.1:${(listener.address() as AddressInfo).port}/`);
      expect(res.status).toBe(200);
      const landing = await res.text();
      for (const link of ['/api/v1/docs', '/api/v1/redoc', '/api/v1/openapi.json', '/health']) expect(landing).toContain(`href="${link}"`);
      expect(landing).toMatch(/Planwarden <small>\d+\.\d+\.\d+<\/small>/);
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });
});
