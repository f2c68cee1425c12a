#!/usr/bin/env bash
# Builds what a release ships into dist/, with the commands the test scripts use:
#
#   scripts/release.sh [--target TRIPLE] [--image]
#
# - the `toolview` binary (JetStream included), statically linked for Linux by default
#   (x86_64-unknown-linux-musl: `rustup target add` it and install musl-tools first), as
#   toolview-VERSION-TRIPLE.tar.gz with the README and a SHA-256 sum;
# - the Python package: wheel and sdist (`python -m build`, as scripts/clients-test.sh);
# - the npm packages @toolview/client and @toolview/react (`npm pack`, as clients-test.sh);
# - with --image, the container image toolview:VERSION (`docker build`, which pulls the Rust and
#   distroless base images) saved as toolview-VERSION-image.tar.
#
# The versions of Cargo.toml, clients/python/pyproject.toml and the package.json files must
# agree: the script stops otherwise. Nothing is published: .github/workflows/release.yml uploads
# dist/ on a `v*` tag.
set -euo pipefail
cd "$(dirname "$0")/.."

target=x86_64-unknown-linux-musl
image=false
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --image) image=true; shift ;;
    *) echo "usage: scripts/release.sh [--target TRIPLE] [--image]" >&2; exit 2 ;;
  esac
done

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
for other in \
  "$(sed -n 's/^version = "\(.*\)"/\1/p' clients/python/pyproject.toml | head -1)" \
  "$(node -p 'require("./clients/typescript/package.json").version')" \
  "$(node -p 'require("./clients/react/package.json").version')"; do
  if [ "$other" != "$version" ]; then
    echo "versions disagree: Cargo.toml has $version, a client package $other" >&2
    exit 1
  fi
done
dist=$PWD/dist
rm -rf "$dist"
mkdir -p "$dist"

echo "== toolview $version for $target"
# musl's allocator is slow under threads; toolview uses mimalloc on every target. crt-static is
# musl's default; on a gnu target it asks for a static glibc binary.
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
  cargo build --release --locked --features jetstream --target "$target" --bin toolview
name=toolview-$version-$target
mkdir -p "$dist/$name"
cp "target/$target/release/toolview" README.md "$dist/$name/"
tar -C "$dist" -czf "$dist/$name.tar.gz" "$name"
rm -rf "${dist:?}/$name"

echo "== the Python package (wheel and sdist)"
python3 -m venv "$dist/.build-venv"
"$dist/.build-venv/bin/pip" install --quiet --disable-pip-version-check build
"$dist/.build-venv/bin/python" -m build --outdir "$dist" clients/python >/dev/null
rm -rf "$dist/.build-venv"

echo "== the npm packages"
npm ci --prefix clients/typescript --no-audit --no-fund --loglevel=error
(cd clients/typescript && npm pack --silent --pack-destination "$dist" >/dev/null)
npm ci --prefix clients/react --no-audit --no-fund --loglevel=error
(cd clients/react && npm pack --silent --pack-destination "$dist" >/dev/null)

if $image; then
  echo "== the container image"
  docker build -t "toolview:$version" .
  docker save -o "$dist/toolview-$version-image.tar" "toolview:$version"
fi

(cd "$dist" && sha256sum -- * >SHA256SUMS)
ls -l "$dist"
