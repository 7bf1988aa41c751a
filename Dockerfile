# syntax=docker/dockerfile:1
# Node 24 LTS (Node 20 reached end of life on 2026-04-30). CI runs the whole suite on the same
# Node 24 (.ci/node24), with the native modules as this image builds them: better-sqlite3 compiled
# by node-gyp here (python3, make, g++), bcrypt and @napi-rs/canvas from their prebuilt N-API binaries.
# Pinned to 24.18.1: from 24.19.0 Node's ObjectWrap header registers a cleanup hook that makes
# better-sqlite3 12 abort the process when the GC collects a statement ("Assertion failed: (env) !=
# nullptr"). Move to node:24-bookworm-slim together with better-sqlite3 13 (Node-API, Node >= 22).
ARG NODE_IMAGE=24.18.1-bookworm-slim
# Build stage: compile native modules and the TypeScript.
FROM node:${NODE_IMAGE} AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --include=dev
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Console stage: the admin console (web/) as static files.
FROM node:${NODE_IMAGE} AS web
WORKDIR /web
COPY web/package.json web/package-lock.json ./
RUN npm install --no-audit --no-fund --include=dev
COPY web ./
RUN npm run build

# Runtime stage: only what runs, as an unprivileged user.
FROM node:${NODE_IMAGE}
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATABASE_URL=sqlite:/data/auth.sqlite
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=web /web/dist ./web/dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]
