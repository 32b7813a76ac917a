#!/usr/bin/env bash
# Gathers the Qt 6 runtime that kernel-workbench needs on a machine without Qt
# (the GPU machine): downloads Debian 12's runtime packages with `apt-get
# download`, unpacks them with `dpkg -x` into DIR/root, and packs that tree into
# DIR/qt-runtime.tar.xz for carrying. tests/gpu/gui_rerun_on_device.sh uses it.
#
#   scripts/fetch_qt_runtime.sh DIR [EXECUTABLE]
#
# Which packages: Qt's libraries (Core, Gui, Widgets, Charts, Svg, OpenGL,
# OpenGLWidgets, Concurrent, DBus), the offscreen platform plugin and the SVG
# image and icon plugins, then every package that owns a shared library that
# those (and EXECUTABLE, when given: a built kernel-workbench) load, found with
# ldd here and dpkg -S; plus fonts-dejavu-core so that text has a font. Left
# out on purpose: glibc (libc6) and the compiler runtime (libgcc-s1,
# libstdc++6), which every target system has in a newer, compatible version.
#
# Needs the packages installed here (scripts/setup.sh installs them) and apt
# access to a Debian 12 mirror. Writes DIR/packages.txt (package=version).
set -euo pipefail

if [ $# -lt 1 ]; then
    sed -n '2,19p' "$0" >&2
    exit 2
fi
DIR=$(mkdir -p "$1" && cd "$1" && pwd)
EXE=${2:-}
LIBDIR=/usr/lib/x86_64-linux-gnu
PLUGINS=$LIBDIR/qt6/plugins

roots=(libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6svg6 libqt6opengl6 libqt6openglwidgets6
       libqt6concurrent6 libqt6dbus6 fonts-dejavu-core fontconfig-config)
exclude=" libc6 libgcc-s1 libstdc++6 "

# The objects whose shared-library needs decide the rest.
objects=()
for m in Core Gui Widgets Charts Svg OpenGL OpenGLWidgets Concurrent DBus; do objects+=("$LIBDIR/libQt6$m.so.6"); done
# The plugins the workbench loads: the offscreen platform and SVG images and icons.
keep_plugins="platforms/libqoffscreen.so imageformats/libqsvg.so iconengines/libqsvgicon.so"
for k in $keep_plugins; do objects+=("$PLUGINS/$k"); done
[ -n "$EXE" ] && objects+=("$EXE")

declare -A wanted=()
for p in "${roots[@]}"; do wanted[$p]=1; done
# Every library the objects load, once; then one dpkg query for all of them (dpkg -S is slow
# per call). With merged /usr the database may know a library under /lib or /usr/lib.
mapfile -t libs < <(for o in "${objects[@]}"; do ldd "$o"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u)
queries=()
for lib in "${libs[@]}"; do
    base=${lib##*/}
    queries+=("/usr/lib/x86_64-linux-gnu/$base" "/lib/x86_64-linux-gnu/$base")
done
declare -A owner=()
while IFS= read -r line; do
    pkg=${line%%:*}
    path=${line##* }
    owner[${path##*/}]=$pkg
done < <(dpkg -S "${queries[@]}" 2>/dev/null | grep -v '^diversion')
for lib in "${libs[@]}"; do
    base=${lib##*/}
    if [ -z "${owner[$base]:-}" ]; then
        echo "fetch_qt_runtime: no package owns $lib" >&2
        continue
    fi
    wanted[${owner[$base]}]=1
done

mkdir -p "$DIR/debs"
: > "$DIR/packages.txt"
list=()
for p in "${!wanted[@]}"; do
    case $exclude in *" $p "*) continue ;; esac
    list+=("$p")
done
IFS=$'\n' list=($(sort <<<"${list[*]}")); unset IFS
for p in "${list[@]}"; do
    v=$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || true)
    echo "$p=${v}" >> "$DIR/packages.txt"
done
# The version installed here, so the runtime is what the binary was built and tested
# against; when the mirror no longer has it, its current one.
(cd "$DIR/debs" && { apt-get download -qq $(cat "$DIR/packages.txt") 2>/dev/null ||
    apt-get download -qq $(sed 's/=.*//' "$DIR/packages.txt"); })

rm -rf "$DIR/root"
mkdir -p "$DIR/root"
for deb in "$DIR"/debs/*.deb; do dpkg -x "$deb" "$DIR/root"; done
# Platform plugins other than offscreen would only fail to load there; docs, manuals and
# translations are not needed to draw a window.
for d in "$DIR/root$PLUGINS"/*/; do
    for f in "$d"*.so; do
        [ -e "$f" ] || continue
        rel=${f#"$DIR/root$PLUGINS/"}
        case " $keep_plugins " in *" $rel "*) ;; *) rm -f "$f" ;; esac
    done
done

rm -rf "$DIR/root/usr/share/doc" "$DIR/root/usr/share/man" "$DIR/root/usr/share/lintian" \
       "$DIR/root/usr/share/locale" "$DIR/root/usr/share/qt6/translations"
tar -C "$DIR" -cJf "$DIR/qt-runtime.tar.xz" root packages.txt
echo "fetch_qt_runtime: ${#list[@]} packages into $DIR/root ($(du -sh "$DIR/root" | cut -f1)," \
     "packed $(du -h "$DIR/qt-runtime.tar.xz" | cut -f1) in $DIR/qt-runtime.tar.xz)"
