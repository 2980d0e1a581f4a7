/**
 * compose.yaml, read without a container runtime: MongoDB with authentication (root and
 * application accounts from the .env file, the application account limited to the Planwarden
 * database and used by the servers), two server replicas behind one published port through a
 * reverse proxy, a healthcheck on every service, services waiting for what they need, and no
 * secret written in the file. deploy/compose/env.example names every variable the file requires.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO } from './manifests';

const TEXT = readFileSync(join(REPO, 'compose.yaml'), 'utf8');
const compose = parseYaml(TEXT) as { services: Record<string, any>; volumes?: Record<string, unknown> };
const services = compose.services;
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
/** A `./deploy/compose/...` bind mount of `service` whose target is `target`; its source file. */
function mounted(service: string, target: string): string {
  const entry = (services[service].volumes as string[]).find((v) => v.split(':')[1] === target);
  expect(entry, `${service} mounts ${target}`).toBeDefined();
  return (entry as string).split(':')[0].replace(/^\.\//, '');
}
const secretName = /PASSWORD|SECRET|_KEY$|TOKEN|_URI$/;

describe('compose.yaml', () => {
  it('every service has a healthcheck, and each waits for what it needs to be healthy', () => {
    for (const [name, service] of Object.entries(services)) expect(service.healthcheck?.test, name).toBeDefined();
    expect(services.planwarden.depends_on).toEqual({ mongo: { condition: 'service_healthy' } });
    expect(services.proxy.depends_on).toEqual({ planwarden: { condition: 'service_healthy' } });
  });

  it('runs MongoDB with authentication: root from .env, an application user with readWrite on planwarden only', () => {
    const env = services.mongo.environment;
    expect(env.MONGO_INITDB_ROOT_USERNAME).toMatch(/^\$\{MONGO_ROOT_USER:\?/);
    expect(env.MONGO_INITDB_ROOT_PASSWORD).toMatch(/^\$\{MONGO_ROOT_PASSWORD:\?/);
    expect(services.mongo.volumes).toContainEqual(expect.stringMatching(/^mongo-data:\/data\/db$/));
    expect(compose.volumes).toHaveProperty('mongo-data');
    const init = read(mounted('mongo', '/docker-entrypoint-initdb.d/planwarden-user.js'));
    expect(init).toMatch(/createUser\(\{ user, pwd: password, roles: \[\{ role: 'readWrite', db: database \}\] \}\)/);
    expect(init).toMatch(/process\.env\.PLANWARDEN_MONGO_PASSWORD/);
    expect(env.PLANWARDEN_MONGO_DATABASE).toBe(services.planwarden.environment.PLANWARDEN_STORAGE_DATABASE);
  });

  it('the servers connect as the application user, never as root', () => {
    const server = services.planwarden.environment;
    expect(server.PLANWARDEN_STORAGE_BACKEND).toBe('docdb');
    const uri = server.PLANWARDEN_STORAGE_URI as string;
    expect(uri).toMatch(
      /^mongodb:\/\/\$\{PLANWARDEN_MONGO_USER:\?[^}]*\}:\$\{PLANWARDEN_MONGO_PASSWORD:\?[^}]*\}@mongo:27017\/planwarden\?authSource=planwarden$/,
    );
    expect(uri).not.toMatch(/MONGO_ROOT/);
  });

  it('puts two replicas behind one published port through the proxy; the first admin is configured', () => {
    expect(services.planwarden.deploy.replicas).toBeGreaterThanOrEqual(2);
    expect(services.planwarden.ports).toBeUndefined();
    expect(services.mongo.ports).toBeUndefined();
    expect(services.proxy.ports).toEqual([expect.stringMatching(/:8000$/)]);
    const caddyfile = read(mounted('proxy', '/etc/caddy/Caddyfile'));
    expect(caddyfile).toMatch(/dynamic a \{\s*name planwarden\s*port 8000/);
    expect(caddyfile).toMatch(/^:8000 \{/m);
    const server = services.planwarden.environment;
    expect(server.PLANWARDEN_AUTH_ENABLED).toBe('true');
    expect(server.PLANWARDEN_AUTH_DEFAULT_ADMIN_EMAIL).toMatch(/^\$\{PLANWARDEN_AUTH_DEFAULT_ADMIN_EMAIL:\?/);
    expect(server.PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD).toMatch(/^\$\{PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD:\?/);
    expect(server.PLANWARDEN_AUTH_API_KEY).toBeUndefined();
  });

  it('holds no secret literal: every credential is a required variable from the environment', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries((service.environment ?? {}) as Record<string, string>)) {
        if (!secretName.test(key) && !/USERNAME|_USER$/.test(key)) continue;
        const literal = String(value).replace(/\$\{[A-Z0-9_]+:\?[^}]*\}/g, '');
        expect(literal, `${name}.${key}`).not.toMatch(/[A-Za-z0-9]{6,}(?=@)|:[^/@${}]+@/);
        if (key !== 'PLANWARDEN_STORAGE_URI') expect(value, `${name}.${key}`).toMatch(/^\$\{[A-Z0-9_]+:\?[^}]*\}$/);
      }
    }
    expect(TEXT).not.toMatch(/:\/\/[^$\s]*:[^$\s]*@/);
  });

  it('deploy/compose/env.example names every variable compose.yaml requires, with no value for a secret', () => {
    const required = new Set([...TEXT.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]));
    const example = Object.fromEntries(
      read('deploy/compose/env.example')
        .split('\n')
        .filter((l) => /^[A-Z0-9_]+=/.test(l))
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    for (const name of required) expect(example, name).toHaveProperty(name);
    for (const [name, value] of Object.entries(example)) if (secretName.test(name)) expect(value, name).toBe('');
  });
});
