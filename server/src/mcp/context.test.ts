import { describe, expect, it } from 'vitest';
import { route } from '../http/route';
import { policyOf } from './context';

const routes = [
  route({ method: 'get', path: '/jobs/:job_id', policy: 'viewer', body: 'none', handler: async () => ({}) }),
  route({ method: 'put', path: '/resource/:hash/analysis', policy: 'member', body: 'json', handler: async () => ({}) }),
];

describe('policyOf', () => {
  it("takes a tool's policy from the HTTP route it mirrors", () => {
    expect(policyOf({ routes }, 'GET /jobs/:job_id')).toBe('viewer');
    expect(policyOf({ routes }, 'PUT /resource/:hash/analysis')).toBe('member');
  });

  it('refuses at startup a tool that mirrors no route', () => {
    expect(() => policyOf({ routes }, 'DELETE /jobs/:job_id')).toThrow(/no HTTP route/);
  });
});
