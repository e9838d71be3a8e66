#!/usr/bin/env bash
# Menagerie robots on the articulated engine (issue 47, deliverable 3).
#
#   bench/menagerie.sh MENAGERIE_DIR [ROBOT_DIR/FILE.xml ...]
#
# MENAGERIE_DIR is a local copy of google-deepmind/mujoco_menagerie (or of
# the XMLs of it). Each model is copied into a temporary folder; every mesh
# it names that is absent there (or a Git LFS pointer) is replaced by a
# stand-in: a 2 cm cube, OBJ or binary STL after the file's extension. The
# same copy goes to both engines, so the comparison is like for like.
# Per robot it prints one table row:
#
#   robot | loads? | refusal | 10 s hold of the home keyframe (max |qpos-qpos0|,
#   ours and MuJoCo's; our warnings) | 1 s max |Δqpos| ours vs MuJoCo 3.3.8
#   (and how far MuJoCo's qpos moves in that second) | MuJoCo dt vs dt/2 |
#   steps/s ours | steps/s MuJoCo 3.3.8 WASM
#
# Needs go, python3, node and npm (scripts/mujoco-oracle.sh installs
# mujoco-js 0.0.7 into a cache). Nothing of Menagerie is written into the
# repository.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
	echo "usage: bench/menagerie.sh MENAGERIE_DIR [ROBOT_DIR/FILE.xml ...]: give the folder of a local copy of mujoco_menagerie" >&2
	exit 2
fi
src="$(cd "$1" && pwd)"
shift
robots=("$@")
if [ ${#robots[@]} -eq 0 ]; then
	robots=(
		universal_robots_ur5e/ur5e.xml
		franka_emika_panda/panda.xml
		franka_emika_panda/mjx_panda.xml
		kinova_gen3/gen3.xml
		ufactory_xarm7/xarm7.xml
		robotiq_2f85/2f85.xml
		trossen_vx300s/vx300s.xml
		unitree_go2/go2.xml
		agility_cassie/cassie.xml
		agility_cassie/scene.xml
		aloha/aloha.xml
		unitree_go1/go1.xml
		shadow_hand/right_hand.xml
	)
fi
for t in go python3; do
	command -v "$t" >/dev/null || { echo "menagerie.sh: $t is needed" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rt="$work/robot-train"
(cd "$here" && go build -o "$rt" ./cmd/robot-train)
"$here/scripts/mujoco-oracle.sh" --install-only >/dev/null

echo "| robot | loads | refusal | hold 10 s: max drift, warnings | 1 s max abs dqpos vs MuJoCo | MuJoCo dt vs dt/2 | steps/s ours | steps/s MuJoCo WASM | stand-in meshes |"
echo "|---|---|---|---|---|---|---|---|---|"
for r in "${robots[@]}"; do
	dir="${r%/*}"
	file="${r##*/}"
	if [ ! -f "$src/$r" ]; then
		echo "| $r | - | not in $src | | | | | | |"
		continue
	fi
	rm -rf "${work:?}/m"
	mkdir -p "$work/m"
	cp -r "$src/$dir" "$work/m/$dir"
	model="$work/m/$r"
	# stand-in meshes for every absent (or LFS-pointer) mesh file
	stand=$(python3 "$here/bench/menagerie_meshes.py" "$model")
	key=home
	grep -q 'name="home"' "$model" || key=0
	grep -q '<key' "$model" || key=""
	kf=()
	[ -n "$key" ] && kf=(--keyframe "$key")
	if ! "$rt" simulate --model "$model" "${kf[@]}" --duration 0 >/dev/null 2>"$work/err"; then
		why=$(tail -1 "$work/err" | sed "s#$work/m/##g; s/|/\\\\|/g")
		echo "| $r | no | $why | | | | | | $stand |"
		continue
	fi
	# 10 s hold at the model's settings: drift from the keyframe and warnings
	"$rt" simulate --model "$model" "${kf[@]}" --duration 10 --every 50 --json >"$work/hold.jsonl" 2>"$work/holderr" || true
	hold=$(python3 "$here/bench/menagerie_cmp.py" drift "$work/hold.jsonl")
	warn=$(grep -c . "$work/holderr" || true)
	# 1 s against MuJoCo 3.3.8 and MuJoCo's own dt vs dt/2
	"$rt" simulate --model "$model" "${kf[@]}" --duration 1 --every 1 --json >"$work/ours.jsonl" 2>/dev/null || true
	if "$here/scripts/mujoco-oracle.sh" --model "$model" "${kf[@]}" --duration 2 --speed >"$work/mjspeed.json" 2>"$work/mjerr"; then
		dt=$(python3 "$here/bench/menagerie_cmp.py" field "$work/mjspeed.json" timestep)
		mjs=$(python3 "$here/bench/menagerie_cmp.py" field "$work/mjspeed.json" steps_per_second)
		"$here/scripts/mujoco-oracle.sh" --model "$model" "${kf[@]}" --duration 1 --every 1 >"$work/mj.jsonl"
		"$here/scripts/mujoco-oracle.sh" --model "$model" "${kf[@]}" --duration 1 --every 1 \
			--timestep "$(python3 -c "print($dt/2)")" >"$work/mjhalf.jsonl"
		"$here/scripts/mujoco-oracle.sh" --model "$model" "${kf[@]}" --duration 10 --every 50 >"$work/mjhold.jsonl"
		mjhold=$(python3 "$here/bench/menagerie_cmp.py" drift "$work/mjhold.jsonl" | cut -d" " -f1)
		cmp=$(python3 "$here/bench/menagerie_cmp.py" final "$work/ours.jsonl" "$work/mj.jsonl")
		cmp="$cmp (MuJoCo moves $(python3 "$here/bench/menagerie_cmp.py" drift "$work/mj.jsonl" | cut -d" " -f1))"
		self=$(python3 "$here/bench/menagerie_cmp.py" final "$work/mj.jsonl" "$work/mjhalf.jsonl")
	else
		cmp="MuJoCo refused: $(grep -m1 -o "mjCError.*\|Error.*" "$work/mjerr" | cut -c1-120 | sed "s/|/\\\\|/g")"
		self="" mjs="" mjhold=""
	fi
	ours=$("$rt" simulate --model "$model" "${kf[@]}" --duration 2 --speed 2>/dev/null | grep -o '[0-9.]* steps/s' | head -1 | cut -d" " -f1)
	echo "| $r | yes | | $hold (MuJoCo ${mjhold:-?}), $warn warning lines | $cmp | $self | $ours | $mjs | $stand |"
done
