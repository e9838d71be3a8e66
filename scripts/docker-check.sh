#!/usr/bin/env bash
# docker-check.sh [Dockerfile]
#
# Runs a Dockerfile's build steps without Docker: no base image can be
# pulled here, so each stage's FROM becomes a Debian bookworm chroot made
# by debootstrap from Debian's own packages, and its RUN, COPY, ENV and
# WORKDIR steps are executed in it in order, as `docker build` would run
# them (RUN through /bin/sh -c in WORKDIR with the ENV so far). Then the
# final stage's ENTRYPOINT is run in its chroot: `robot-train version`,
# `robot-train tasks`, and a 300-step training with EGL rendering (Mesa
# llvmpipe) and an evaluation GIF; and `ldd` must find every library.
#
# What this checks: the apt package names and the commands of every RUN
# step against Debian bookworm, that scripts/deps.sh provides what the
# build needs, that the runtime stage's packages are enough for the binary
# to start, render and train, and the COPY sources exist.
# What it does not: the base images themselves. golang:1.26-bookworm is
# modelled as bookworm plus this machine's Go in /usr/local/go (GOPATH
# /go, as the image sets), debian:bookworm-slim as debootstrap's minbase
# (slim removes docs and locales, nothing a step here uses). Layer caching,
# .dockerignore, USER and image metadata are not modelled; the NVIDIA
# driver mount of Dockerfile.gpu needs a GPU host (its build steps are
# checked here all the same).
#
# Needs root, debootstrap (installed with apt-get when missing) and network
# access to a Debian mirror ($DEBIAN_MIRROR) and the Go module proxy. The
# bootstrapped base is cached as a tarball in $DOCKER_CHECK_CACHE (default
# /var/cache/vlmrb-docker-check).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
dockerfile=${1:-Dockerfile}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=${DOCKER_CHECK_CACHE:-/var/cache/vlmrb-docker-check}
[ "$(id -u)" -eq 0 ] || { echo "docker-check: needs root (chroot, mounts)" >&2; exit 2; }
[ -f "$dockerfile" ] || { echo "docker-check: no $dockerfile" >&2; exit 2; }
command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }

work=$(mktemp -d /tmp/docker-check.XXXXXX)
mounts=()
cleanup() {
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

base="$cache/bookworm-minbase.tar"
if [ ! -f "$base" ]; then
	mkdir -p "$cache"
	echo "docker-check: debootstrap bookworm (minbase) from $mirror"
	debootstrap --variant=minbase bookworm "$work/base" "$mirror" >"$work/debootstrap.log" 2>&1 ||
		{ tail -20 "$work/debootstrap.log" >&2; exit 1; }
	tar -C "$work/base" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$work/base"
fi

bind() { # bind SRC DST: mount SRC at DST inside a chroot, undone at exit
	mkdir -p "$2"
	mount --bind "$1" "$2"
	mounts+=("$2")
}

# new_stage NAME IMAGE: a fresh chroot for a FROM
new_stage() {
	local root="$work/stage-$1"
	mkdir -p "$root"
	tar -C "$root" -xf "$base"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	mount -t proc proc "$root/proc" && mounts+=("$root/proc")
	bind /dev "$root/dev"
	bind /dev/pts "$root/dev/pts"
	env_vars=("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" "HOME=/root" "DEBIAN_FRONTEND=noninteractive")
	case "$2" in
	golang:*)
		# the official Go image: Go in /usr/local/go on PATH, GOPATH /go;
		# the host's module and build caches stand in for the network
		cp -a "$(go env GOROOT)" "$root/usr/local/go"
		env_vars=("PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
			"HOME=/root" "GOPATH=/go" "GOTOOLCHAIN=local" "GOFLAGS=-modcacherw" "DEBIAN_FRONTEND=noninteractive")
		bind "$(go env GOMODCACHE)" "$root/go/pkg/mod"
		bind "$(go env GOCACHE)" "$root/root/.cache/go-build"
		;;
	debian:*) ;;
	*) echo "docker-check: FROM $2 is not modelled (golang:*-bookworm and debian:bookworm* are)" >&2; exit 1 ;;
	esac
	stage_root[$1]=$root
	stage_env[$1]=$(printf '%s\n' "${env_vars[@]}")
	cur=$1
	workdir=/
}

declare -A stage_root stage_env
cur="" workdir=/ n=0 entry=""
# the Dockerfile's instructions, continuation lines joined, comments dropped
mapfile -t steps < <(sed -e 's/[[:space:]]*$//' "$dockerfile" | awk '
	/^[[:space:]]*#/ && !cont { next }
	{ line = cont ? line " " $0 : $0 }
	/\\$/ { sub(/\\$/, "", line); cont = 1; next }
	{ cont = 0; if (line ~ /[^[:space:]]/) print line; line = "" }')
start=$(date +%s)
for step in "${steps[@]}"; do
	read -r op rest <<<"$step"
	op=${op^^}
	case "$op" in
	FROM)
		read -r image _as name <<<"$rest"
		n=$((n + 1))
		name=${name:-stage$n}
		echo "docker-check: FROM $image (stage $name)"
		new_stage "$name" "$image"
		;;
	WORKDIR)
		case "$rest" in /*) workdir=$rest ;; *) workdir="$workdir/$rest" ;; esac
		mkdir -p "${stage_root[$cur]}$workdir"
		;;
	ENV)
		# KEY=VALUE pairs (no quoting or spaces in values here)
		for kv in $rest; do stage_env[$cur]+=$'\n'"$kv"; done
		;;
	COPY)
		from=""
		if [[ $rest == --from=* ]]; then
			from=${rest%% *}
			from=${from#--from=}
			rest=${rest#* }
		fi
		read -r -a args <<<"$rest"
		dst=${args[-1]}
		unset 'args[-1]'
		case "$dst" in /*) ;; *) dst="$workdir/$dst" ;; esac
		root=${stage_root[$cur]}
		for src in "${args[@]}"; do
			if [ -n "$from" ]; then
				mkdir -p "$root$(dirname "$dst")"
				cp -a "${stage_root[$from]}$src" "$root$dst"
			elif [ "$src" = . ]; then
				mkdir -p "$root$dst"
				# the build context: what git would commit (tracked and untracked, not ignored)
				git ls-files -co --exclude-standard -z | (cd "$repo" && xargs -0 cp --parents -a -t "$root$dst" 2>/dev/null || true)
			else
				[ -e "$repo/$src" ] || { echo "docker-check: COPY $src: not in the repository" >&2; exit 1; }
				if [[ $dst == */ ]] || [ "${#args[@]}" -gt 1 ]; then
					mkdir -p "$root$dst"
					cp -a "$repo/$src" "$root$dst/"
				else
					mkdir -p "$root$(dirname "$dst")"
					cp -a "$repo/$src" "$root$dst"
				fi
			fi
		done
		;;
	RUN)
		echo "docker-check: RUN ${rest:0:100}"
		t0=$(date +%s)
		mapfile -t envs <<<"${stage_env[$cur]}"
		if ! chroot "${stage_root[$cur]}" /usr/bin/env -i "${envs[@]}" /bin/sh -c "cd '$workdir' && $rest" >"$work/run.log" 2>&1; then
			tail -30 "$work/run.log" >&2
			echo "docker-check: FAILED: RUN $rest" >&2
			exit 1
		fi
		echo "docker-check:   ok ($(($(date +%s) - t0)) s)"
		;;
	ENTRYPOINT)
		entry=$(sed -e 's/^\["//' -e 's/"\]$//' -e 's/", "/ /g' <<<"$rest")
		;;
	CMD | ARG | LABEL | EXPOSE | USER | VOLUME | SHELL) ;;
	*) echo "docker-check: $op is not modelled" >&2; exit 1 ;;
	esac
done
[ -n "$entry" ] || { echo "docker-check: no ENTRYPOINT" >&2; exit 1; }

root=${stage_root[$cur]}
mapfile -t envs <<<"${stage_env[$cur]}"
in_image() { chroot "$root" /usr/bin/env -i "${envs[@]}" /bin/sh -c "cd '$workdir' && $*"; }
bin=$(in_image "command -v $entry")
if in_image "ldd $bin" | grep -q 'not found'; then
	in_image "ldd $bin" | grep 'not found' >&2
	echo "docker-check: FAILED: the final stage lacks libraries the binary links" >&2
	exit 1
fi
in_image "$entry version" >/dev/null
in_image "$entry tasks" | grep -q '^reach '
out=$(in_image "$entry train --task reach --steps 300 --num-envs 2 --learning-starts 100 --batch-size 32 --hidden 16,16 \
	--eval-every 0 --eval-episodes 1 --max-episode-len 50 --render-backend egl --out runs/docker-check" 2>&1) || {
	echo "$out" >&2
	echo "docker-check: FAILED: a short training in the final stage" >&2
	exit 1
}
in_image "test -s runs/docker-check/videos/eval-000000300.gif" || { echo "docker-check: FAILED: no evaluation GIF (EGL rendering)" >&2; exit 1; }
echo "docker-check: $dockerfile: every step ran; robot-train starts, renders with EGL and trains in the final stage ($(($(date +%s) - start)) s)"
