#!/bin/sh
# A FlexIO program built against an installed prefix with pkg-config only:
# `cmake --install` into a temporary prefix, then the RPC sample
# (examples/flexio_rpc) built out of a copy of its sources with
#   device: $(pkg-config --variable=dpacc libflexio-dev) + --cflags libflexio-dev
#   host:   cc ... $(pkg-config --cflags --libs libflexio)
# and run with the installed `softmlx5 run`; then once more through the
# CMake recipe of docs/flexio.md (tests/install/cmake_recipe). Nothing of the build or source
# tree is on any search path.
#
#   flexio_installed.sh CMAKE BUILD_DIR SOURCE_DIR
set -eu
cmake=$1 build=$2 src=$3

tmp=$(mktemp -d /tmp/smx-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "flexio_installed: FAILED: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "cmake --install"; }

# Only the prefix's pkg-config files; the tree's own variables are unset.
pc=$(find "$tmp/prefix" -name libflexio.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || fail "no libflexio.pc installed under the prefix"
PKG_CONFIG_PATH=$(dirname "$pc")
export PKG_CONFIG_PATH
unset SOFTMLX5_FLEXIO_INCLUDE SOFTMLX5_LIBDIR PKG_CONFIG_LIBDIR 2>/dev/null || true

for h in libflexio/flexio.h libflexio-dev/flexio_dev.h libflexio-libc/string.h dpaintrin.h; do
	[ -f "$tmp/prefix/include/$h" ] || fail "<$h> is not in <prefix>/include"
done
dpacc=$(pkg-config --variable=dpacc libflexio-dev)
case $dpacc in "$tmp/prefix/"*) ;; *) fail "dpacc variable '$dpacc' is not in the prefix";; esac
[ -x "$dpacc" ] || fail "$dpacc is not executable"
cflags=$(pkg-config --cflags --libs libflexio) || fail "pkg-config libflexio"
echo "pkg-config --cflags --libs libflexio: $cflags"
case $cflags in *-lflexio*) ;; *) fail "no -lflexio in '$cflags'";; esac
case $cflags in *-libverbs*) ;; *) fail "libflexio does not bring libibverbs";; esac

cp -R "$src/examples/flexio_rpc" "$tmp/app"
cd "$tmp/app"
"$dpacc" -v dev/flexio_rpc_dev.c -o rpc_dev.a --app-name=flexio_rpc_app -hostcc=cc \
	--devicecc-options="-O2 -Wall -Werror $(pkg-config --cflags libflexio-dev) -DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API" \
	-mcpu=nv-dpa-bf3 >dpacc.log 2>&1 || { cat dpacc.log >&2; fail "softmlx5-dpacc"; }
# The installed dpacc must have used the installed headers, not the tree's.
grep -q -- "-I$tmp/prefix/include" dpacc.log || { cat dpacc.log >&2; fail "dpacc did not use <prefix>/include"; }
if grep -q -- "-I$src/src/flexio" dpacc.log; then fail "dpacc used the source tree's headers"; fi
# shellcheck disable=SC2046 # pkg-config output is a word list
cc -O2 -Wall -Werror -DDEV_APP_NAME=flexio_rpc_app host/flexio_rpc.c rpc_dev.a \
	$(pkg-config --cflags --libs libflexio) -o flexio_rpc || fail "host build"

"$tmp/prefix/bin/softmlx5" run -- ./flexio_rpc mlx5_0 1 100 >run.log 2>&1 || { cat run.log >&2; fail "flexio_rpc exited $?"; }
cat run.log
grep -q "Result: 5050" run.log || fail "no 'Result: 5050' from the RPC"
grep -q "Calls so far + 1000: 1002" run.log || fail "second RPC wrong"
# The same sample through the CMake recipe of docs/flexio.md.
"$cmake" -S "$src/tests/install/cmake_recipe" -B cmk -DAPP_SRC="$tmp/app" >cmake.log 2>&1 &&
	"$cmake" --build cmk >>cmake.log 2>&1 || { cat cmake.log >&2; fail "CMake recipe"; }
"$tmp/prefix/bin/softmlx5" run -- ./cmk/app mlx5_0 3 4 >run2.log 2>&1 || { cat run2.log >&2; fail "CMake-built app"; }
grep -q "Result: 7" run2.log || { cat run2.log >&2; fail "CMake-built app: no 'Result: 7'"; }
echo "CMake recipe: Result: 7"
echo "flexio_installed: OK"
