# The studio as one image: the README's deployment, step for step (npm ci, npm run build, then
# `node packages/server/dist/main.js`), which packages/web/e2e/start.e2e.ts runs without a container.
# deploy/compose.yaml runs two API nodes of it behind a proxy, on PostgreSQL and Redis.

FROM node:22-bookworm-slim AS build
WORKDIR /studio
COPY . .
RUN npm ci && npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /studio
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 STUDIO_DATA_DIR=/data MALLOC_ARENA_MAX=2
# Only what runs: the bundles, the web app, the installed packages (DuckDB's native addon, WebAssembly).
COPY --from=build /studio/package.json ./
COPY --from=build /studio/node_modules ./node_modules
COPY --from=build /studio/packages/server/package.json ./packages/server/
COPY --from=build /studio/packages/server/dist ./packages/server/dist
COPY --from=build /studio/packages/web/dist ./packages/web/dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=5s CMD ["node", "-e", "fetch('http://127.0.0.1:8080/v1/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "packages/server/dist/main.js"]
