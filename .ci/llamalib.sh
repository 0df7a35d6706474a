#!/usr/bin/env bash
# Fetches llama.cpp's prebuilt shared libraries for the embedded engine
# (backend/llamacpp) from npm, once, cached by version:
# ${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/node-llama-cpp-$VERSION/package/bins/linux-x64
# (the npm tarball kept beside package/).
# The directory is the last line printed on stdout, so callers can do:
# DRAGOMAN_LLAMA_LIB=$(.ci/llamalib.sh | tail -n1).
#
# The npm package @node-llama-cpp/linux-x64 ships llama.cpp v0.5.0 as
# libllama.v0.5.0.so, libggml.v0.5.0.so, libggml-base.so and one
# libggml-cpu-<variant>.so per CPU generation (ggml picks the best at run
# time). The engine's binding is written against exactly that release, so the
# version is pinned. libllama.so and libggml.so links are added for tools that
# expect the plain names. About 11 MB; needs npm (or only tar and a download
# of the tarball npm would fetch).
set -euo pipefail

version="${DRAGOMAN_LLAMA_NPM_VERSION:-3.22.1}"
pkg="@node-llama-cpp/linux-x64@$version"
cache="${DRAGOMAN_CACHE:-$HOME/.cache/dragoman}/node-llama-cpp-$version"
lib="$cache/package/bins/linux-x64"

die() { echo "llamalib.sh: $*" >&2; exit 1; }

tgz_name="node-llama-cpp-linux-x64-$version.tgz"
if [ -e "$lib/libllama.so" ] && [ -e "$lib/libggml.so" ] && [ -e "$cache/$tgz_name" ]; then
  echo "llamalib.sh: using cached $lib" >&2
  echo "$lib"
  exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
if command -v flock >/dev/null; then flock 9; fi
if [ -e "$lib/libllama.so" ] && [ -e "$lib/libggml.so" ] && [ -e "$cache/$tgz_name" ]; then echo "$lib"; exit 0; fi

command -v npm >/dev/null || die "npm not found on PATH (it fetches $pkg)"
tmp=$(mktemp -d "$cache/tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "llamalib.sh: fetching $pkg" >&2
tgz=$(cd "$tmp" && npm pack --silent "$pkg" | tail -n1) || die "npm pack $pkg failed"
[ -f "$tmp/$tgz" ] || die "npm pack printed '$tgz' but no such file is in $tmp"
tar -xzf "$tmp/$tgz" -C "$tmp"
# The tarball itself is kept: the test of `dragoman engine install` serves it
# from a registry on loopback and checks it against the hash the binary pins.
cp "$tmp/$tgz" "$cache/$tgz_name"
[ -f "$tmp/package/bins/linux-x64/libllama.v0.5.0.so" ] || die "$pkg holds no bins/linux-x64/libllama.v0.5.0.so"
ln -sf libllama.v0.5.0.so "$tmp/package/bins/linux-x64/libllama.so"
ln -sf libggml.v0.5.0.so "$tmp/package/bins/linux-x64/libggml.so"
rm -rf "$cache/package"
mv "$tmp/package" "$cache/package"
echo "llamalib.sh: unpacked into $lib" >&2
echo "$lib"
