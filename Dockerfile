# syntax=docker/dockerfile:1
# mc-server image (the kubectl-multicluster plugin is included for `kubectl exec` debugging).
#
#   docker build -t kubectl-multicluster/mc-server:latest .
#
# Used by deploy/deploy.yaml and the Helm chart in deploy/helm/kubectl-multicluster.

FROM rust:1-bookworm AS builder
WORKDIR /src
COPY . .
# Cache mounts keep the registry and incremental artefacts between builds (BuildKit).
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p mc-server -p kubectl-multicluster \
 && install -D -m 0755 -t /out target/release/mc-server target/release/kubectl-multicluster

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 mc \
 && useradd --system --uid 10001 --gid mc --home-dir /var/lib/mc-server --shell /usr/sbin/nologin mc \
 && install -d -o mc -g mc -m 0750 /var/lib/mc-server
COPY --from=builder /out/ /usr/local/bin/
USER 10001:10001
WORKDIR /var/lib/mc-server
EXPOSE 31888
ENTRYPOINT ["mc-server"]
CMD ["--config", "/etc/mc/config.yaml", "--data-dir", "/var/lib/mc-server", "--no-cli-config"]
