import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

/**
 * A small OpenID Provider on 127.0.0.1 speaking the real wire protocol (OIDC Discovery, the
 * authorization code flow with PKCE S256, client_secret_post / basic, RS256 ID tokens signed
 * with jose, a JWKS). The authorize endpoint "logs in" `user` at once and redirects back.
 * Knobs in `next` spoil the next ID token to show the relying party refuses it.
 */
export interface FakeOidcUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

export interface IdTokenKnobs {
  wrongNonce?: boolean;
  wrongAudience?: boolean;
  expired?: boolean;
  /** Signed by a key that is not in the JWKS (same kid). */
  badSignature?: boolean;
  wrongIssuer?: boolean;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  nonce: string | undefined;
  challenge: string | undefined;
  user: FakeOidcUser;
  used: boolean;
}

export interface FakeOidcProvider {
  readonly issuer: string;
  /** Registered clients: client_id → secret. */
  readonly clients: Map<string, string>;
  /** Who the authorize endpoint signs in next. */
  user: FakeOidcUser;
  /** Spoils the next issued ID token (reset after use). */
  next: IdTokenKnobs;
  /** Requests seen (method and path), for assertions. */
  readonly seen: string[];
  close(): Promise<void>;
}

function form(body: string): URLSearchParams {
  return new URLSearchParams(body);
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** Starts the provider on 127.0.0.1 (free port); `path` prefixes every endpoint (issuer path). */
export async function startFakeOidcProvider(options: { path?: string } = {}): Promise<FakeOidcProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const rogue = await generateKeyPair('RS256');
  const kid = randomBytes(4).toString('hex');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const grants = new Map<string, Grant>();
  const prefix = options.path ?? '';
  const state = { issuer: '' };

  const sign = async (grant: Grant, knobs: IdTokenKnobs): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const key: CryptoKey = knobs.badSignature ? rogue.privateKey : privateKey;
    const { sub, ...claims } = grant.user;
    return new SignJWT({ ...claims, ...(grant.nonce !== undefined ? { nonce: knobs.wrongNonce ? 'not-the-nonce' : grant.nonce } : {}) })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(knobs.wrongIssuer ? `${state.issuer}/other` : state.issuer)
      .setSubject(sub)
      .setAudience(knobs.wrongAudience ? 'someone-else' : grant.clientId)
      .setIssuedAt(knobs.expired ? now - 7200 : now)
      .setExpirationTime(knobs.expired ? now - 3600 : now + 300)
      .sign(key);
  };

  const provider: FakeOidcProvider = {
    issuer: '',
    clients: new Map(),
    user: { sub: 'user-1', email: 'user@example.com', email_verified: true },
    next: {},
    seen: [],
    close: async () => {
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
    },
  };

  const clientOf = (req: http.IncomingMessage, body: URLSearchParams): { id: string | null; secret: string | null } => {
    const basic = req.headers.authorization?.match(/^Basic (.+)$/i);
    if (basic) {
      const [id, secret] = Buffer.from(basic[1], 'base64').toString('utf8').split(':').map(decodeURIComponent);
      return { id, secret };
    }
    return { id: body.get('client_id'), secret: body.get('client_secret') };
  };

  const token = async (req: http.IncomingMessage, res: http.ServerResponse, body: URLSearchParams) => {
    const client = clientOf(req, body);
    if (!client.id || !provider.clients.has(client.id) || (provider.clients.get(client.id) && provider.clients.get(client.id) !== client.secret)) {
      json(res, 401, { error: 'invalid_client' });
      return;
    }
    const grant = grants.get(body.get('code') ?? '');
    if (
      body.get('grant_type') !== 'authorization_code' ||
      !grant ||
      grant.used ||
      grant.clientId !== client.id ||
      grant.redirectUri !== body.get('redirect_uri')
    ) {
      json(res, 400, { error: 'invalid_grant' });
      return;
    }
    grant.used = true;
    const verifier = body.get('code_verifier') ?? '';
    if (grant.challenge && createHash('sha256').update(verifier).digest('base64url') !== grant.challenge) {
      json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      return;
    }
    const knobs = provider.next;
    provider.next = {};
    json(res, 200, { access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 300, id_token: await sign(grant, knobs) });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', state.issuer);
      const path = url.pathname.slice(prefix.length);
      provider.seen.push(`${req.method} ${path}`);
      void (async () => {
        if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
          json(res, 200, {
            issuer: state.issuer,
            authorization_endpoint: `${state.issuer}/authorize`,
            token_endpoint: `${state.issuer}/token`,
            jwks_uri: `${state.issuer}/jwks`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            code_challenge_methods_supported: ['S256'],
            token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic', 'none'],
            scopes_supported: ['openid', 'email', 'profile'],
          });
        } else if (req.method === 'GET' && path === '/jwks') {
          json(res, 200, { keys: [jwk] });
        } else if (req.method === 'GET' && path === '/authorize') {
          const q = url.searchParams;
          const redirect = q.get('redirect_uri');
          if (!redirect || !provider.clients.has(q.get('client_id') ?? '')) {
            json(res, 400, { error: 'invalid_request' });
            return;
          }
          const code = randomBytes(16).toString('hex');
          grants.set(code, {
            clientId: q.get('client_id') as string,
            redirectUri: redirect,
            nonce: q.get('nonce') ?? undefined,
            challenge: q.get('code_challenge') ?? undefined,
            user: { ...provider.user },
            used: false,
          });
          const back = new URL(redirect);
          back.searchParams.set('code', code);
          if (q.get('state')) back.searchParams.set('state', q.get('state') as string);
          res.writeHead(302, { location: back.href });
          res.end();
        } else if (req.method === 'POST' && path === '/token') {
          await token(req, res, form(Buffer.concat(chunks).toString('utf8')));
        } else {
          json(res, 404, { error: 'not_found' });
        }
      })().catch((error: unknown) => json(res, 500, { error: String(error) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
  return Object.assign(provider, { issuer: state.issuer });
}
