#!/bin/sh
# Installs zerodb: downloads the release binary for this machine, checks it
# against the release's SHA256SUMS, and puts it in ~/.local/bin (or the
# folder given) as `zerodb`.
#
#   curl -fsSL https://github.com/zerodb/zerodb/releases/latest/download/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- --dir /opt/zerodb/bin
#
# Options (each also an environment variable):
#   --dir DIR      ZERODB_INSTALL_DIR   where to put zerodb (default ~/.local/bin, created if missing)
#   --url URL      ZERODB_RELEASE_URL   the release folder to download from
#                                       (default https://github.com/zerodb/zerodb/releases/latest/download)
#   --target NAME  ZERODB_TARGET        the binary to take, e.g. linux-x64-musl, instead of detecting it
#
# POSIX sh only (dash, busybox, bash --posix): it runs wherever `curl | sh` does.
# Everything happens inside main(), called on the last line, so a download cut
# short runs nothing at all.

set -eu

DEFAULT_RELEASE_URL="https://github.com/zerodb/zerodb/releases/latest/download"

say() { printf '%s\n' "$*"; }
warn() { printf 'zerodb install: warning: %s\n' "$*" >&2; }
die() {
  printf 'zerodb install: %s\n' "$*" >&2
  exit 1
}

usage() {
  cat <<EOF
Usage: install.sh [--dir DIR] [--url URL] [--target NAME]

Downloads the zerodb binary for this machine, checks it against SHA256SUMS
and installs it as DIR/zerodb.

  --dir DIR      install folder (env ZERODB_INSTALL_DIR; default ~/.local/bin)
  --url URL      release folder (env ZERODB_RELEASE_URL; default $DEFAULT_RELEASE_URL)
  --target NAME  linux-x64, linux-arm64, linux-x64-musl, darwin-x64, darwin-arm64
                 or windows-x64 (env ZERODB_TARGET; default: detected)
EOF
}

# The release's file suffix for this machine, as scripts/release.ts names them
# (zerodb-<os>-<arch>[-musl][.exe]).
detect_target() {
  os=$(uname -s)
  arch=$(uname -m)
  case "$arch" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) die "no zerodb binary for the $arch processor (there are x86-64 and ARM64 builds)" ;;
  esac
  case "$os" in
    Linux)
      if is_musl; then
        [ "$arch" = x64 ] || die "no zerodb binary for musl Linux on $arch (musl is built for x86-64 only); a glibc system can take linux-$arch"
        printf 'linux-x64-musl'
      else
        printf 'linux-%s' "$arch"
      fi
      ;;
    Darwin)
      # A shell running under Rosetta reports x86_64 on Apple silicon; the
      # native binary is the one to install there.
      if [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
        arch=arm64
      fi
      printf 'darwin-%s' "$arch"
      ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      [ "$arch" = x64 ] || die "no zerodb binary for Windows on $arch (only x86-64)"
      printf 'windows-x64'
      ;;
    *) die "no zerodb binary for $os (there are builds for Linux, macOS and Windows)" ;;
  esac
}

# musl or glibc: ldd names its C library (musl's ldd says "musl libc" on
# --version). Without ldd, a musl loader and no glibc loader decide it.
is_musl() {
  if command -v ldd >/dev/null 2>&1; then
    case "$(ldd --version 2>&1 || true)" in
      *musl*) return 0 ;;
      *) return 1 ;;
    esac
  fi
  for f in /lib/ld-linux-* /lib64/ld-linux-*; do
    [ -e "$f" ] && return 1
  done
  for f in /lib/ld-musl-*; do
    [ -e "$f" ] && return 0
  done
  return 1
}

# Fetches URL into FILE, failing on any HTTP error.
download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --proto '=https,http' -o "$2" "$1" || die "could not download $1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1" || die "could not download $1"
  else
    die "needs curl or wget to download the release"
  fi
}

# True when URL (http:// or https://) names this machine: localhost, 127.x.x.x
# or [::1]. Such a folder is a test or a mirror the user runs themselves.
is_loopback_url() {
  hostport=${1#*://}
  hostport=${hostport%%/*}
  hostport=${hostport##*@}
  case "$hostport" in
    \[::1\] | \[::1\]:*) return 0 ;;
  esac
  host=${hostport%%:*}
  case "$host" in
    localhost) return 0 ;;
    *[!0-9.]*) return 1 ;;
    127.*) return 0 ;;
    *) return 1 ;;
  esac
}

# Warns when the release folder is plain http on another machine: anyone on
# the way can change the binary and SHA256SUMS together, so the checksum
# proves nothing there.
check_release_url() {
  case "$1" in
    [Hh][Tt][Tt][Pp]://*)
      is_loopback_url "$1" ||
        warn "$1 is plain http: anyone between here and there can swap the binary and its SHA256SUMS together; use an https:// release URL"
      ;;
  esac
}

# SHA-256 of FILE, lowercase hex.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    die "needs sha256sum or shasum to check the download; nothing was installed"
  fi
}

# The PATH advice for DIR, in the syntax of the user's login shell.
path_advice() {
  shown=$1
  case "$1" in
    "$HOME"/*) shown="\$HOME/${1#"$HOME"/}" ;;
  esac
  say ""
  say "$1 is not on your PATH yet. To run zerodb by name, add it for this shell and the next ones:"
  case "${SHELL:-}" in
    */fish)
      say "  fish_add_path $1"
      ;;
    */zsh)
      say "  export PATH=\"$shown:\$PATH\""
      say "  echo 'export PATH=\"$shown:\$PATH\"' >> ~/.zshrc"
      ;;
    */bash)
      say "  export PATH=\"$shown:\$PATH\""
      say "  echo 'export PATH=\"$shown:\$PATH\"' >> ~/.bashrc"
      ;;
    *)
      say "  export PATH=\"$shown:\$PATH\""
      say "  echo 'export PATH=\"$shown:\$PATH\"' >> ~/.profile"
      ;;
  esac
}

main() {
  dir=${ZERODB_INSTALL_DIR:-}
  url=${ZERODB_RELEASE_URL:-$DEFAULT_RELEASE_URL}
  target=${ZERODB_TARGET:-}
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir | --url | --target)
        [ $# -ge 2 ] || die "$1 needs a value"
        case "$1" in
          --dir) dir=$2 ;;
          --url) url=$2 ;;
          --target) target=$2 ;;
        esac
        shift 2
        ;;
      --dir=*) dir=${1#*=} && shift ;;
      --url=*) url=${1#*=} && shift ;;
      --target=*) target=${1#*=} && shift ;;
      -h | --help)
        usage
        exit 0
        ;;
      *) die "unknown option '$1' (see --help)" ;;
    esac
  done
  if [ -z "$dir" ]; then
    [ -n "${HOME:-}" ] || die "HOME is not set: give the install folder with --dir or ZERODB_INSTALL_DIR"
    dir="$HOME/.local/bin"
  fi
  url=${url%/}

  if [ -z "$target" ]; then
    target=$(detect_target) || exit 1
  fi
  case "$target" in
    linux-x64 | linux-arm64 | linux-x64-musl | darwin-x64 | darwin-arm64) asset="zerodb-$target" name=zerodb ;;
    windows-x64) asset="zerodb-$target.exe" name=zerodb.exe ;;
    *) die "unknown target '$target' (linux-x64, linux-arm64, linux-x64-musl, darwin-x64, darwin-arm64, windows-x64)" ;;
  esac
  if [ "$target" = linux-x64 ] && [ -r /proc/cpuinfo ] && ! grep -q avx2 /proc/cpuinfo; then
    warn "this processor has no AVX2, which the linux-x64 binary needs (CPUs from 2013 on); it may stop with 'Illegal instruction'"
  fi

  # Downloads land in a private temporary folder first: nothing reaches the
  # install folder until its checksum matched.
  tmp=$(mktemp -d 2>/dev/null || mktemp -d -t zerodb-install)
  stage=""
  trap 'rm -rf "$tmp"; [ -z "$stage" ] || rm -rf "$stage"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  check_release_url "$url"
  say "Downloading $asset from $url"
  download "$url/$asset" "$tmp/$asset"
  download "$url/SHA256SUMS" "$tmp/SHA256SUMS"

  # `sha256sum` writes "<hex>  <name>" (or "<hex> *<name>" in binary mode).
  expected=$(awk -v f="$asset" '$2 == f || $2 == "*" f { print tolower($1); exit }' "$tmp/SHA256SUMS")
  [ -n "$expected" ] || die "SHA256SUMS at $url lists no $asset; nothing was installed"
  actual=$(sha256_of "$tmp/$asset")
  if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $asset: SHA256SUMS says $expected, the download is $actual; nothing was installed"
  fi
  say "Checked $asset against SHA256SUMS: $actual"

  mkdir -p "$dir" || die "could not create $dir"
  # A directory (or a link to one) named $name would take the binary inside it.
  [ ! -d "$dir/$name" ] || die "$dir/$name is a directory (or a link to one); nothing was installed"
  # Copied beside the old binary and renamed over it: the rename is atomic,
  # so a running zerodb (an agent harness's MCP server) keeps its old file
  # and no reader ever sees half a binary. It is staged in a folder mktemp
  # creates (a new name, made exclusively, 0700) inside the install folder:
  # in a folder others can write to, a name they can guess could be a link
  # planted there, and copying to it would write through the link. Inside
  # the private folder the file keeps the name $name, so Windows (Git Bash)
  # runs it as an .exe for the check below.
  stage=$(mktemp -d "$dir/.zerodb-install-XXXXXXXXXX") || die "could not write to $dir"
  part="$stage/$name"
  cp "$tmp/$asset" "$part" || die "could not write to $dir"
  chmod 755 "$part"
  # Run once before it replaces anything: a binary that cannot start here
  # (wrong C library, missing libstdc++ on Alpine) is refused, not installed.
  if ! version=$("$part" --version 2>"$tmp/stderr"); then
    hint=""
    [ "$target" = linux-x64-musl ] && hint=" (on Alpine it needs: apk add libstdc++ libgcc)"
    die "the downloaded zerodb does not run on this machine$hint: $(head -n 3 "$tmp/stderr"); nothing was installed"
  fi
  # rename(2) replaces a link at $dir/$name, never what it points to.
  mv -f "$part" "$dir/$name" || die "could not move zerodb into $dir (is it running? close it and try again)"
  rmdir "$stage"
  stage=""

  say "Installed ${version:-zerodb} to $dir/$name"
  case ":${PATH:-}:" in
    *":$dir:"* | *":$dir/:"*)
      found=$(command -v "$name" 2>/dev/null || true)
      if [ -n "$found" ] && [ "$found" != "$dir/$name" ]; then
        warn "another zerodb comes first on your PATH: $found"
      fi
      ;;
    *) path_advice "$dir" ;;
  esac
  say ""
  say "Next: zerodb connect (registers zerodb with your agent harnesses), then zerodb doctor."
}

main "$@"
