#!/usr/bin/env bash
# Rewrites fuzz/seeds/artifact/*.hkb with the current hookc (run after a
# change of the artifact format): seed 000 in full, its hooks.yaml, the XML
# example, and seed_sources/small.yaml compiled in two named layers.
set -euo pipefail
cd "$(dirname "$0")/.."
hookc() { cargo run -q -p hookc-cli -- "$@"; }
out=fuzz/seeds/artifact
ex=examples/thread-hooks
hookc compile $ex/hooks.yaml $ex/directive_hooks.yaml $ex/directive.xml -o $out/seed000_full.hkb
hookc compile $ex/hooks.yaml -o $out/seed000_hooks.hkb
hookc compile examples/policy.xml -o $out/policy_xml.hkb
hookc compile --layer base=fuzz/seed_sources/small.yaml --layer run=$ex/hooks.yaml -o $out/small.hkb
