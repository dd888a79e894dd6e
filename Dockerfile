# syntax=docker/dockerfile:1
#
# The server for production: built in one stage, run from a lean install in the next. The runtime
# stage's steps (copy package.json, package-lock.json and dist/src, `npm ci --omit=dev …` with the
# ARG defaults, then the CMD) are the ones test/e2e/production-install.test.ts reads from this file
# and runs against DynamoDB Local, so the image's start path is tested without Docker.
#
#   docker build -t artissist .                           # lean: no tracing SDK
#   docker build --build-arg TRACING=true -t artissist .   # with OpenTelemetry
#   docker run -p 4000:4000 -e TABLE_NAME=… -e S3_BUCKET=… -e AUTH_JWKS_URL=… -e CURSOR_SECRET=… artissist
#
# See docs/deploying.md for the settings and the table, bucket and policy it needs.

FROM node:26-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json

FROM node:26-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
# Development dependencies (DynamoDB Local, the local S3, GraphiQL and React, the CDK, TypeScript)
# stay out; install scripts are not needed by any production dependency. The OpenTelemetry SDK and
# its instrumentations are optional dependencies, left out too unless the image is built with
# `--build-arg TRACING=true` (a server without them refuses OTEL_* settings that switch tracing on).
ARG TRACING=false
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev $([ "$TRACING" = true ] || echo --omit=optional) --no-audit --no-fund --ignore-scripts
COPY --from=build /app/dist/src ./dist/src
# The image's own unprivileged user: the server needs no root, and its files stay read-only to it.
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node runs as PID 1 with no shell in between, so `docker stop`'s SIGTERM reaches the server's own
# handler, which drains and exits (see docs/operations.md, "Stopping").
CMD ["node", "dist/src/main.js"]
