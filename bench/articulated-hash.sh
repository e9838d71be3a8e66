#!/usr/bin/env bash
# Bit-identity check of the articulated engine against a git revision
# (default main): hashes qpos/qvel after every step of 2000 steps of every
# sim/mjcf/testdata scene (and MuJoCo's humanoid.xml where
# VLMRB_HUMANOID_XML names it), and qpos, qvel, constraint forces,
# contacts, reward and observation after every control step of 4 expert
# episodes (up to 300 control steps) of the nine tabletop tasks on the
# articulated engine, in this tree and in `git archive REV`, and diffs the
# two lists. The hashing tests are bench/arthash/*.go.txt, copied into both
# trees' temporary copies only; they call mjcf.Load, so REV must be c5c5a2c
# (where LoadArticulated became Load) or later.
# Usage: bench/articulated-hash.sh [REV]
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-main}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ref" "$tmp/cur"
git archive "$rev" | tar -x -C "$tmp/ref"
# this tree as it is (uncommitted changes included)
git ls-files -z --cached --others --exclude-standard | tar --null -T - -c | tar -x -C "$tmp/cur"
for t in ref cur; do
	cp bench/arthash/mjcf_hash_test.go.txt "$tmp/$t/sim/mjcf/zz_arthash_test.go"
	cp bench/arthash/tasks_hash_test.go.txt "$tmp/$t/tasks/zz_arthash_test.go"
	(cd "$tmp/$t/sim/mjcf" && ZZ_OUT="$tmp/$t.mjcf" go test -count=1 -run '^TestZZHash$' . >/dev/null)
	(cd "$tmp/$t/tasks" && ZZ_OUT="$tmp/$t.tasks" go test -count=1 -run '^TestZZHashArt$' . >/dev/null)
done
cat "$tmp/ref.mjcf" "$tmp/ref.tasks" >"$tmp/ref.txt"
cat "$tmp/cur.mjcf" "$tmp/cur.tasks" >"$tmp/cur.txt"
echo "$(wc -l <"$tmp/cur.txt") scenes and tasks hashed"
if diff "$tmp/ref.txt" "$tmp/cur.txt"; then
	echo "bit-identical to $rev"
else
	echo "differs from $rev (lines above: < $rev, > this tree)"
	exit 1
fi
