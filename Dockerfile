# gameserver-exporter on an empty base image: one statically linked binary and the example
# configuration, nothing else (no shell, no C library, no /etc/passwd). The binary is built
# outside the image, so no Rust base image has to be pulled; docs/container.md explains it:
#
#   RUSTFLAGS="-C target-feature=+crt-static" CARGO_PROFILE_RELEASE_STRIP=debuginfo \
#       cargo build --release --locked --target x86_64-unknown-linux-gnu --bin gameserver-exporter
#   docker build -t gameserver-exporter:0.1.0 .
#
# .dockerignore keeps the build context down to these files. CI (.ci/image.sh) builds the
# image from a cheaper profile with --build-arg BINARY=target/x86_64-unknown-linux-gnu/ci-image/gameserver-exporter.
FROM scratch

ARG BINARY=target/x86_64-unknown-linux-gnu/release/gameserver-exporter
# Keep equal to Cargo.toml's version (.ci/image.sh checks).
ARG VERSION=0.1.0

LABEL org.opencontainers.image.title="gameserver-exporter" \
      org.opencontainers.image.description="Prometheus exporter for game servers: Valve A2S, Minecraft, SA:MP, Quake 3, Teeworlds/DDNet and Mumble" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="MIT OR Apache-2.0" \
      org.opencontainers.image.source="https://example.invalid/gameserver-exporter" \
      org.opencontainers.image.documentation="https://example.invalid/gameserver-exporter/blob/main/docs/container.md"

COPY ${BINARY} /usr/local/bin/gameserver-exporter
# Names: /etc/hosts, then DNS (docs/container.md, "Name resolution"); the runtime mounts both.
COPY deploy/container/nsswitch.conf /etc/nsswitch.conf
# Reference only: the daemon reads /etc/gameserver-exporter/exporter.toml, which you mount.
COPY exporter.example.toml /usr/share/doc/gameserver-exporter/exporter.example.toml

# nobody:nogroup by number: scratch has no /etc/passwd to look a name up in.
USER 65534:65534
EXPOSE 10765
ENTRYPOINT ["/usr/local/bin/gameserver-exporter"]
# Listen on every address whatever exporter.listen says, so the exposed port is the one served.
CMD ["--config=/etc/gameserver-exporter/exporter.toml", "--listen=0.0.0.0:10765"]
