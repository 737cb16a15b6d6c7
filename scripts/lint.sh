#!/usr/bin/env bash
# make lint: clang-format on every tracked C++ file (.clang-format), then clang-tidy (.clang-tidy)
# on the .cc files changed since a base: LINT_BASE if set, else the merge-base with origin/main,
# else HEAD~1. A changed header is checked through one .cc that includes it. Needs the build's
# compile_commands.json (make build). Exits non-zero on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
# clang-tidy 14 (Debian's default) cannot parse std::source_location from g++ 12's libstdc++: it
# lacks __builtin_source_location (clang 15+). Debian 12 ships clang-tidy-19 beside it.
CLANG_TIDY=${CLANG_TIDY:-clang-tidy-19}
LINT_JOBS=${LINT_JOBS:-2}
# Files clang cannot compile although g++ does; clang-tidy skips them (fix, then drop them here).
TIDY_SKIP=()
CXX_SPECS=()
for d in sim src runtime clients tests; do CXX_SPECS+=("$d/*.cc" "$d/*.h"); done

for tool in "$CLANG_FORMAT" "$CLANG_TIDY"; do
  if ! command -v "$tool" > /dev/null; then
    echo "lint: $tool not found: run 'make deps' (scripts/setup-deps.sh installs it)" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- Formatting: every tracked C++ file. ---
mapfile -t all_files < <(git ls-files -- "${CXX_SPECS[@]}")
unformatted=()
if ! "$CLANG_FORMAT" --dry-run --Werror "${all_files[@]}" > "$tmp/format.log" 2>&1; then
  mapfile -t unformatted < <(sed -n \
    's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' "$tmp/format.log" |
    sort -u)
  if [[ ${#unformatted[@]} -eq 0 ]]; then  # clang-format failed for another reason: show it.
    cat "$tmp/format.log" >&2
    echo "lint: FAILED: $CLANG_FORMAT did not run cleanly" >&2
    exit 1
  fi
  echo "lint: ${#unformatted[@]} file(s) need formatting:"
  for f in "${unformatted[@]}"; do
    first=$(grep -m1 "^$f:[0-9]*:[0-9]*: error:" "$tmp/format.log" | cut -d: -f1-3)
    echo "  $f  (first at $first)   fix: $CLANG_FORMAT -i $f"
  done
else
  echo "lint: formatting OK (${#all_files[@]} files)"
fi

# --- clang-tidy: the .cc files changed since the base. ---
db="$BUILD_DIR/compile_commands.json"
if [[ ! -f "$db" ]]; then
  echo "lint: $db is missing: run 'make build' first" >&2
  exit 1
fi

head=$(git rev-parse HEAD)
if [[ -n ${LINT_BASE:-} ]]; then
  base_how="LINT_BASE=$LINT_BASE"
  if ! base=$(git rev-parse -q --verify "$LINT_BASE^{commit}" 2> /dev/null ||
    git rev-parse -q --verify "$LINT_BASE^{tree}"); then
    echo "lint: LINT_BASE=$LINT_BASE is not a commit" >&2
    exit 1
  fi
elif git rev-parse -q --verify origin/main > /dev/null &&
  base=$(git merge-base HEAD origin/main) && [[ $base != "$head" ]]; then
  base_how="merge-base with origin/main"
elif base=$(git rev-parse -q --verify HEAD~1); then
  base_how="HEAD~1"
else  # A root commit: everything is new.
  base=$(git hash-object -t tree /dev/null)
  base_how="the empty tree (HEAD has no parent)"
fi

# Changed since the base, committed or not; deleted files drop out.
mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" -- "${CXX_SPECS[@]}")
# tests/fuzz/ is compiled only by the clang fuzz build (make fuzz), tests/install/ only against an
# install prefix (tests/python/test_install.py); neither is in $db: not tidied.
mapfile -t changed < <(printf '%s\n' "${changed[@]}" |
  grep -v -e '^tests/fuzz/' -e '^tests/install/' -e '^$' || true)
tidy_files=()
declare -A why  # file -> the changed header it stands for
skipped=()
for f in "${changed[@]}"; do [[ $f == *.cc ]] && tidy_files+=("$f"); done
# The first .cc (not skipped) that includes header $1, directly or through other headers. An
# include is "path/from/root.h", "../path/from/root.h", or "name.h" from the same folder.
cc_including() {
  local frontier=("$1") next x f seen=" $1 "
  while [[ ${#frontier[@]} -gt 0 ]]; do
    next=()
    for x in "${frontier[@]}"; do
      while read -r f; do
        [[ $seen == *" $f "* ]] && continue
        seen+="$f "
        if [[ $f == *.h ]]; then
          next+=("$f")
        elif [[ " ${TIDY_SKIP[*]} " != *" $f "* ]]; then
          echo "$f"
          return
        fi
      done < <({
        grep -lE "#include \"([^\"]*/)?$x\"" "${all_files[@]}" || true
        grep -lF "#include \"$(basename "$x")\"" "$(dirname "$x")"/*.{h,cc} 2> /dev/null || true
      } | sort -u)
    done
    frontier=("${next[@]}")
  done
}
# A changed header is checked through a .cc that includes it, unless a changed .cc includes it.
for h in "${changed[@]}"; do
  [[ $h == *.h ]] || continue
  covered=""
  for f in "${tidy_files[@]}"; do
    grep -qE "#include \"([^\"]*/)?$(basename "$h")\"" "$f" && covered=1 && break
  done
  [[ -n $covered ]] && continue
  if [[ -f ${h%.h}.cc ]]; then
    user=${h%.h}.cc
  else
    user=$(cc_including "$h")
  fi
  if [[ -n $user ]]; then
    tidy_files+=("$user")
    why[$user]+="${why[$user]:+, }$h"
  else
    echo "lint: note: no .cc includes $h; it is not tidied"
  fi
done

# Drop the skipped files and duplicates, keeping the order.
kept=()
for f in "${tidy_files[@]}"; do
  if [[ " ${TIDY_SKIP[*]} " == *" $f "* ]]; then
    skipped+=("$f")
  elif [[ " ${kept[*]} " != *" $f "* ]]; then
    kept+=("$f")
  fi
done
tidy_files=("${kept[@]}")
for f in "${skipped[@]}"; do
  echo "lint: note: $f is not tidied (clang cannot compile it; see TIDY_SKIP in $0)"
done

findings=0
failed_files=0
short_base=$(git rev-parse --short "$base")
if [[ ${#tidy_files[@]} -eq 0 ]]; then
  echo "lint: clang-tidy: no C++ file changed since $short_base ($base_how)"
else
  echo "lint: clang-tidy on ${#tidy_files[@]} file(s) changed since $short_base ($base_how):"
  for f in "${tidy_files[@]}"; do echo "  $f${why[$f]:+  (for ${why[$f]})}"; done
  missing=()
  for f in "${tidy_files[@]}"; do
    grep -qF "/$f\"" "$db" || missing+=("$f")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "lint: not in $db (run 'make build' to reconfigure): ${missing[*]}" >&2
    exit 1
  fi
  export CLANG_TIDY BUILD_DIR tmp
  # One clang-tidy per file, LINT_JOBS at a time; each writes its log and its exit code.
  printf '%s\n' "${tidy_files[@]}" | xargs -P "$LINT_JOBS" -I{} bash -c \
    'log="$tmp/tidy.$(echo "$1" | tr / _)"; "$CLANG_TIDY" -p "$BUILD_DIR" --quiet "$1" > "$log.log" 2>&1;
     echo $? > "$log.rc"' _ {}
  for f in "${tidy_files[@]}"; do
    log="$tmp/tidy.$(echo "$f" | tr / _)"
    if [[ $(cat "$log.rc") -ne 0 ]]; then
      failed_files=$((failed_files + 1))
      # Drop clang-tidy's "N warnings generated / treated as errors" chatter.
      grep -vE '^[0-9]+ (warning|error)s? (generated|treated as errors)\.$' "$log.log" || true
    fi
  done
  # A header finding shows once per file that includes it: count each once.
  findings=$(cat "$tmp"/tidy.*.log | grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error): .*\]$' |
    sort -u | wc -l || true)
fi

if [[ ${#unformatted[@]} -eq 0 && $failed_files -eq 0 ]]; then
  echo "lint: OK: ${#all_files[@]} files formatted, clang-tidy clean on ${#tidy_files[@]} file(s)"
  exit 0
fi
msg=""
if [[ ${#unformatted[@]} -gt 0 ]]; then msg="${#unformatted[@]} file(s) need formatting; "; fi
if [[ $failed_files -gt 0 ]]; then
  msg+="clang-tidy: $findings finding(s) in $failed_files file(s) (fix them, or add"
  msg+=" NOLINT(check-name) with the reason); "
fi
echo "lint: FAILED: ${msg%; }" >&2
exit 1
