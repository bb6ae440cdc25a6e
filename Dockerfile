# tidingsd in a container: built with the Swift toolchain image, run on slim Debian.
#
#   docker build -t tidingsd .
#   docker run -p 8080:8080 -v tidings-data:/var/lib/tidings tidingsd
#
# Not built on the machine this repository is developed on (it has no Docker); docs/deploy.md says what
# was and was not checked.

# The toolchain the project is developed and tested with (6.3); tools-version 6.0 is the floor.
FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-dev libpq-dev libssl-dev libcurl4-openssl-dev libqrencode-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest first, so a change to the sources does not invalidate the resolved package layer.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
RUN swift build -c release --product tidingsd --static-swift-stdlib \
    && install -D "$(swift build -c release --show-bin-path)/tidingsd" /out/tidingsd

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-0 libpq5 libssl3 libcurl4 libqrencode4 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home-dir /var/lib/tidings --create-home tidings
COPY --from=build /out/tidingsd /usr/local/bin/tidingsd
USER tidings
VOLUME /var/lib/tidings
EXPOSE 8080 9090
ENV TIDINGS_DATA_DIR=/var/lib/tidings TIDINGS_LISTEN=0.0.0.0:8080
# No HEALTHCHECK: the slim image has no HTTP client; orchestrators probe GET /readyz themselves.
ENTRYPOINT ["/usr/local/bin/tidingsd"]
