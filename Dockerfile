# syntax=docker/dockerfile:1
# Node 24 LTS: node:24-bookworm-slim follows the newest 24 (`docker build --pull` takes it), and CI
# runs the suite on the newest Node 24 too. Node 20 reached end of life on 2026-04-30.
# better-sqlite3, bcrypt and @napi-rs/canvas load prebuilt Node-API binaries; python3, make and g++
# are there for node-gyp, which npm still runs for better-sqlite3 (it builds nothing when the
# prebuild fits) and for a platform without a prebuild.

# Build stage: install the dependencies and compile the TypeScript.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --include=dev
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Console stage: the admin console (web/) as static files.
FROM node:24-bookworm-slim AS web
WORKDIR /web
COPY web/package.json web/package-lock.json ./
RUN npm install --no-audit --no-fund --include=dev
COPY web ./
RUN npm run build

# Runtime stage: only what runs, as an unprivileged user.
FROM node:24-bookworm-slim
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
CMD ["node", "--max-semi-space-size=8", "dist/src/main.js"]
