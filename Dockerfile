# robot-train in a container: Debian bookworm, the packages scripts/deps.sh
# installs, and the robot-train binary. Renders with Mesa (llvmpipe) on
# CPUs; Dockerfile.gpu is the NVIDIA EGL variant.
#
#   docker build -t vlmrb .
#   docker run --rm -v "$PWD/runs:/data/runs" vlmrb train --steps 30000
#
# No base image can be pulled on this project's machines, so `make docker-check`
# (scripts/docker-check.sh) runs these steps in a debootstrap chroot (see the script for what
# that does and does not check).

# --- build: the official Go image is Debian bookworm with Go in /usr/local/go
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY scripts/deps.sh scripts/deps.sh
RUN scripts/deps.sh
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -buildvcs=false -o /out/robot-train ./cmd/robot-train

# --- runtime: the shared libraries robot-train links (EGL/GL through glvnd,
# Mesa's llvmpipe, OpenBLAS, the X11 libraries GLFW loads) and ffmpeg for
# MP4 and LeRobot videos
FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      ca-certificates libegl1 libgl1 libgl1-mesa-dri libopenblas0 \
      libx11-6 libxcursor1 libxrandr2 libxinerama1 libxi6 libxxf86vm1 ffmpeg \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/robot-train /usr/local/bin/robot-train
COPY studies /opt/vlmrb/studies
WORKDIR /data
ENTRYPOINT ["robot-train"]
CMD ["help"]
