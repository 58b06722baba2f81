# ka2 as a container image: a static binary on an empty base, run as a
# non-root user.
#
#   docker build -t ka2 --build-arg VERSION=v1.2.3 .
#   docker run --rm -v "$PWD/policies:/corpus:ro" ka2 lint /corpus
#   docker run --rm -p 8080:8080 -v "$PWD/policies:/corpus:ro" ka2 \
#     serve --corpus /corpus --addr :8080
#
# ka2 serve listens on 127.0.0.1 unless told otherwise: in a container it
# needs --addr :8080 to be reachable. The image has no shell, curl or wget,
# so its health check is ka2 itself (ka2 healthcheck GETs /healthz); on
# Kubernetes use HTTP probes instead (deploy/kubernetes).

# The builder image is an argument so that a CI without a registry can
# substitute a local image holding the same Go toolchain.
ARG GO_IMAGE=golang:1.26-bookworm

FROM ${GO_IMAGE} AS build
WORKDIR /src
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Release values for `ka2 version`; without them it shows the module
# version "(devel)" (the build context holds no .git).
ARG VERSION=""
ARG COMMIT=""
ARG DATE=""
# CGO_ENABLED=0 makes the binary static, so it runs on an empty base;
# -trimpath keeps the builder's paths out of it.
RUN CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath \
      -ldflags "-s -w \
        -X github.com/ka2/ka2/cmd/ka2/internal/cli.version=${VERSION} \
        -X github.com/ka2/ka2/cmd/ka2/internal/cli.commit=${COMMIT} \
        -X github.com/ka2/ka2/cmd/ka2/internal/cli.date=${DATE}" \
      -o /out/usr/local/bin/ka2 ./cmd/ka2 \
 && mkdir -p /out/tmp /out/etc/ssl/certs \
 && chmod 1777 /out/tmp \
 && cp /etc/ssl/certs/ca-certificates.crt /out/etc/ssl/certs/

FROM scratch
COPY --from=build /out/ /
COPY LICENSE /usr/share/doc/ka2/LICENSE
ENV PATH=/usr/local/bin
# 65532 is the "nonroot" user of distroless images; any non-zero id works,
# and Kubernetes' runAsNonRoot needs it numeric.
USER 65532:65532
# The files ka2 reads here are mounted by whoever runs the container, and
# owned by a user of the host, never by 65532: believe their settings
# files (ka2.yaml, .ka2lint.yaml) whoever owns them.
ENV KA2_TRUSTED_DIRS=*
WORKDIR /tmp
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["ka2", "healthcheck", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["ka2"]
CMD ["--help"]
