# syntax=docker/dockerfile:1
# One image for both production processes: the API (default) and the Temporal worker (compose overrides the command).
# Not built or run in this repository's CI: there is no container runtime here (test/config/containers.unit.test.ts
# checks this file statically).

# --- Dependencies: production packages only (tsx runs the TypeScript sources at run time, so no compile step) ---
FROM node:20.20.2-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- Console: the web console and the MCP App page, built once (one output), so the API builds nothing at start ---
FROM deps AS console
COPY tsconfig.json ./
COPY src ./src
COPY web ./web
RUN node --import tsx --input-type=module -e "await (await import('./src/console/build-console.ts')).buildConsole('/app/console-dist')"

# --- Runtime ---
FROM node:20.20.2-bookworm-slim
ENV NODE_ENV=production \
    PLATFORM_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    PLATFORM_DEV_DIR=/app/state \
    CONSOLE_ASSETS_DIR=/app/console-dist
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=console /app/console-dist ./console-dist
COPY package.json tsconfig.json ./
COPY src ./src
COPY config ./config
RUN mkdir -p /app/state && chown node:node /app/state
# The base image's unprivileged user (uid 1000); nothing in /app but the state folder is writable by it.
USER node
EXPOSE 8080
# Liveness only (the event loop answers); readiness (/readyz) is for load balancers, not restarts.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz',{signal:AbortSignal.timeout(2500)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Both processes drain on SIGTERM (SHUTDOWN_GRACE_MS, WORKER_SHUTDOWN_GRACE_MS): give them a stop timeout above it.
STOPSIGNAL SIGTERM
# Exec form: node is PID 1 and gets the signal itself (no shell in between).
CMD ["node", "--import", "tsx", "src/main/api.ts"]
