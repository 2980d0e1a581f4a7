# syntax=docker/dockerfile:1
# Planwarden team server. The server runs from its TypeScript sources under tsx (there is no
# compiled output yet), so the image carries engine/src and server/src and starts them with
# `node --import tsx` — what `npm start` does, without npm as PID 1 (signals reach the server).

# --- deps: production dependencies only (better-sqlite3 is native: build tools just in case
#     no prebuilt binary matches) ---
FROM node:20-bookworm-slim AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY engine/package.json engine/package.json
COPY server/package.json server/package.json
RUN npm ci --omit=dev --no-audit --no-fund

# --- runtime: sources, resources and the installed dependencies; no build tools ---
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PLANWARDEN_HOST=0.0.0.0 \
    PLANWARDEN_PORT=8000 \
    PLANWARDEN_DATA_DIR=/data \
    PLANWARDEN_LOGGING_FORMAT=json
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY engine/package.json engine/package.json
COPY server/package.json server/package.json
COPY engine/src engine/src
COPY server/src server/src
COPY resources resources
# The image's `node` user (uid 1000) owns only the data directory.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PLANWARDEN_PORT || 8000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--import", "tsx", "server/src/main.ts"]
