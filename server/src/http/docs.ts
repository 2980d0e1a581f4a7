import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import express, { type Response } from 'express';
import { PRODUCT_NAME, VERSION } from '../version';
import { buildOpenApiDocument } from './openapi';
import type { RouteDef } from './route';

const require = createRequire(import.meta.url);
/**
 * The packages' files are located on first request, not at load: a bundle that does not ship
 * them (the desktop app) still starts, and only these pages answer 404 there.
 */
const swaggerUiDir = (): string => dirname(require.resolve('swagger-ui-dist/package.json'));
const redocBundle = (): string => require.resolve('redoc/bundles/redoc.standalone.js');
/** The Swagger UI files the page loads (served from swagger-ui-dist; no CDN). */
const SWAGGER_UI_FILES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'];

function page(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

/**
 * The pages load scripts, styles and images from this server only: ReDoc's footer logo on a
 * CDN is never fetched. Inline styles (both UIs inject them) and blob: workers (ReDoc's search)
 * are allowed.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sends an installed package's file, or 404 `{detail}` when the package is not installed. */
function sendPackageFile(res: Response, locate: () => string): void {
  let file: string;
  try {
    file = locate();
  } catch {
    res.status(404).json({ detail: 'The API reference pages are not installed in this build' });
    return;
  }
  res.sendFile(file, { maxAge: '1d' });
}

function sendHtml(res: Response, html: string): void {
  res.type('html').set({ 'Cache-Control': 'no-cache', 'Content-Security-Policy': CONTENT_SECURITY_POLICY }).send(html);
}

/**
 * The public documentation surface (identity-api.md "Interactive API references"), no
 * credential needed under any auth mode (the document carries no secrets):
 * - `GET {base}/openapi.json`: the OpenAPI 3.1 document of `routes` (openapi.ts);
 * - `GET {base}/docs`: Swagger UI (swagger-ui-dist, served locally) over that document;
 * - `GET {base}/redoc`: ReDoc (redoc v2 standalone bundle, served locally);
 * - `GET /`: a small landing page linking them and /health.
 * Mount at the root (`app.use('/', router)`); other paths fall through.
 */
export function docsRouter(routes: readonly RouteDef[], base: string): express.Router {
  const router = express.Router();
  let document: string | null = null; // built on first use: the routes never change at run time
  const specUrl = `${base}/openapi.json`;

  router.get(specUrl, (_req, res) => {
    document ??= JSON.stringify(buildOpenApiDocument(routes, { version: VERSION, serverUrl: base }));
    res.type('json').set('Cache-Control', 'no-cache').send(document);
  });

  router.get(`${base}/docs`, (_req, res) =>
    sendHtml(
      res,
      page(
        `${PRODUCT_NAME} API — Swagger UI`,
        `<link rel="stylesheet" href="${base}/docs/swagger-ui.css">\n<link rel="icon" type="image/png" href="${base}/docs/favicon-32x32.png">`,
        `<div id="swagger-ui"></div>\n<script src="${base}/docs/swagger-ui-bundle.js"></script>\n<script src="${base}/docs/init.js"></script>`,
      ),
    ),
  );
  router.get(`${base}/docs/init.js`, (_req, res) => {
    res.type('js').send(`window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'none' });\n`);
  });
  for (const file of SWAGGER_UI_FILES) {
    router.get(`${base}/docs/${file}`, (_req, res) => sendPackageFile(res, () => join(swaggerUiDir(), file)));
  }

  router.get(`${base}/redoc`, (_req, res) =>
    sendHtml(res, page(`${PRODUCT_NAME} API — ReDoc`, '', `<redoc spec-url="${specUrl}"></redoc>\n<script src="${base}/redoc/redoc.standalone.js"></script>`)),
  );
  router.get(`${base}/redoc/redoc.standalone.js`, (_req, res) => sendPackageFile(res, redocBundle));

  router.get('/', (_req, res) =>
    sendHtml(
      res,
      page(
        PRODUCT_NAME,
        '<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;line-height:1.5}</style>',
        `<h1>${PRODUCT_NAME} <small>${VERSION}</small></h1>
<p>Security analysis for infrastructure-as-code.</p>
<ul>
<li><a href="${base}/docs">API reference (Swagger UI)</a></li>
<li><a href="${base}/redoc">API reference (ReDoc)</a></li>
<li><a href="${specUrl}">OpenAPI document</a></li>
<li><a href="/health">Health</a></li>
</ul>`,
      ),
    ),
  );
  return router;
}
