# Planwarden team server: the image runs what `npm start` runs (server/scripts/start.mjs), minus
# its build checks: the compiled server bundle (server/dist/app: main.js, its chunks, the two
# worker-thread bodies and their plain-ESM entries), the built dashboard (apps/web/dist, served at
# /), the rulesets and report templates (resources/, found three folders above the bundle) and the
# production dependencies the bundle leaves external (better-sqlite3 with its native module,
# mongodb, swagger-ui-dist and redoc for /docs and /redoc). `node` is PID 1 in exec form, so
# SIGTERM reaches the server's graceful shutdown (server/src/main.ts).
#
#   docker build -t planwarden:0.1.0 .        (scripts/container-smoke.sh builds and tries it)

# --- build: every workspace but the desktop app (no Electron), then the dashboard and the bundle ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles when no prebuilt binary matches the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY engine/package.json engine/package.json
COPY server/package.json server/package.json
COPY apps/web/package.json apps/web/package.json
COPY apps/desktop/package.json apps/desktop/package.json
RUN npm ci --workspace=engine --workspace=server --workspace=apps/web --include-workspace-root --no-audit --no-fund
COPY . .
RUN npm run build:web && npm run build:server

# --- deps: production dependencies of the engine and the server only (no dashboard sources,
#     no bundler, no test tools); the same base image as the runtime, so the native module fits ---
FROM node:20-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY engine/package.json engine/package.json
COPY server/package.json server/package.json
COPY apps/web/package.json apps/web/package.json
COPY apps/desktop/package.json apps/desktop/package.json
# The workspace links point at sources the runtime does not carry; the bundle needs none of them.
RUN npm ci --omit=dev --workspace=engine --workspace=server --no-audit --no-fund \
 && rm -rf node_modules/@planwarden node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 && npm cache clean --force

# --- runtime: built output and production dependencies; no compiler, no sources ---
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PLANWARDEN_HOST=0.0.0.0 \
    PLANWARDEN_PORT=8000 \
    PLANWARDEN_DATA_DIR=/data \
    PLANWARDEN_LOGGING_FORMAT=json
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
# server/package.json: "type": "module" for the bundle's .js files.
COPY --from=build /app/server/package.json server/package.json
COPY --from=build /app/server/dist/app server/dist/app
COPY --from=build /app/apps/web/dist apps/web/dist
COPY --from=build /app/resources resources
# The image's `node` user, by number (Kubernetes' runAsNonRoot can check only a numeric user);
# it owns only the data directory, the application files stay root-owned and read-only to it.
RUN mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PLANWARDEN_PORT || 8000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The flag `npm start` passes (root package.json): a smaller young generation, less memory at rest.
CMD ["node", "--max-semi-space-size=8", "server/dist/app/main.js"]
