#!/usr/bin/env bash
# Lets the `cuda` feature build offline: installs Debian's LLVM 22 as the LLVM bundle that
# burn-cuda's build scripts would otherwise download from GitHub.
#
# burn-cuda → cubecl-cuda → cubecl-llvm (PTX through LLVM's NVPTX backend) → tracel-llvm-bundler,
# whose build script fetches an LLVM 23.1 archive unless the directory
# `$XDG_DATA_HOME/tracel/tracel-llvm-23.1.0-4` already holds the marker `.tracel-llvm-installed`;
# cubecl-llvm then asks `<that directory>/bin/llvm-config --link-static …` how to link. This script
# fills that directory with the marker and an `llvm-config` that answers for LLVM 22.
#
#   scripts/cuda_llvm.sh            # apt-get the packages if missing, write the stand-in
#   scripts/cuda_llvm.sh --check    # exit 0 when the stand-in is in place, 1 otherwise
#
# On a machine with internet access the stand-in is not needed: `cargo build --features cuda`
# downloads the real bundle. LLVM 22 writes PTX up to ISA 9.0; cubecl asks for 9.1+ only on
# drivers of CUDA ≥ 13.1 (docs/gpu.md says what that means).
set -euo pipefail

bundle_version="23.1.0-4"
llvm_major=22
data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
standin="$data_home/tracel/tracel-llvm-$bundle_version"
marker="$standin/.tracel-llvm-installed"
real_config="/usr/lib/llvm-$llvm_major/bin/llvm-config"

if [ "${1:-}" = "--check" ]; then
    [ -f "$marker" ] && [ -x "$standin/bin/llvm-config" ] && [ -x "$real_config" ] &&
        [ -f "/usr/lib/llvm-$llvm_major/lib/libLLVMCore.a" ]
    exit $?
fi

packages=()
# The static libraries, not llvm-config: that comes with the `llvm-22` package alone.
[ -f "/usr/lib/llvm-$llvm_major/lib/libLLVMCore.a" ] || packages+=("llvm-$llvm_major-dev")
# `llvm-config --libs` lists Polly's archives, and the system libraries name zstd.
compgen -G "/usr/lib/llvm-$llvm_major/lib/libPolly*.a" >/dev/null || packages+=("libpolly-$llvm_major-dev")
compgen -G "/usr/lib/*/libzstd.so" >/dev/null || compgen -G "/usr/lib/libzstd.so" >/dev/null ||
    packages+=("libzstd-dev")
compgen -G "/usr/lib/*/libxml2.so" >/dev/null || packages+=("libxml2-dev")
compgen -G "/usr/lib/*/libz3.so" >/dev/null || packages+=("libz3-dev")
if [ "${#packages[@]}" -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # llvm-22 is in bookworm's security suite; newer Debian and Ubuntu have it in main.
    $sudo apt-get install -y -qq --no-install-recommends "${packages[@]}"
fi

mkdir -p "$standin/bin"
tmp="$(mktemp "$standin/bin/.llvm-config.XXXXXX")"
cat >"$tmp" <<EOF
#!/usr/bin/env bash
# Written by kanon's scripts/cuda_llvm.sh: LLVM $llvm_major answering for tracel-llvm $bundle_version.
# tracel's reader takes a path's file stem as a library name ("libz3"), so a full path to a shared
# library becomes -l<name>.
set -o pipefail
"$real_config" "\$@" | sed -E 's#(^| )/[^ ]*/lib([A-Za-z0-9_+-]+)\.so([.0-9]*)?( |\$)#\1-l\2\4#g'
EOF
chmod +x "$tmp"
mv "$tmp" "$standin/bin/llvm-config"
echo "LLVM $("$real_config" --version) standing in for tracel-llvm $bundle_version" >"$marker.tmp"
mv "$marker.tmp" "$marker"
echo "cuda_llvm: $standin -> LLVM $("$real_config" --version)"
