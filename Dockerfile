# syntax=docker/dockerfile:1
# One image for every role: APP_ROLE=api serves HTTP, APP_ROLE=worker runs the queue processors.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY .ci/npm-overrides ./.ci/npm-overrides
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim AS runtime
# ffprobe and ffmpeg (Debian's ffmpeg package) probe, poster and convert videos (docs/adr/0025). Without
# recommends, and without the package lists afterwards.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ffmpeg \
    && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    MEDIA_DIR=/data/media \
    WORKER_HEARTBEAT_FILE=/tmp/worker.heartbeat
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# The media directory exists in the image, owned by `node`: an empty named volume mounted there
# copies this ownership, so uploads do not fail with EACCES.
RUN mkdir -p /data/media && chown -R node:node /data
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/src/healthcheck.js"]
CMD ["node", "dist/src/main.js"]
