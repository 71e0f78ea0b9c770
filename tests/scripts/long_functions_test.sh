#!/usr/bin/env bash
# scripts/long_functions.py on a file whose functions' lengths are known: a long function with
# no reason fails --check, its reason clears it, and braces in strings, comments, initializers
# and nested lambdas do not cut or start a function.
set -euo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
body() { for ((i = 0; i < $1; ++i)); do echo "  total += $i;  // {"; done; }
{
  echo 'struct Box { int f() const { return 1; } };'
  echo 'const int kTable[] = {1, 2, 3};'
  echo 'int long_one(int x) {'            # lines 3 to 129: 127 lines
  echo '  int total = x;'
  echo '  auto inner = [&](int y) { return y + 1; };'
  echo '  const char* text = R"({ "not": "a brace" })";'
  body 121
  echo '  return total + inner(text[0]);'
  echo '}'
  echo 'int short_one() { return 2; }'
  echo '// Long on purpose: a test of the reason.'
  echo 'Box::Box() : a_{1}, b_(2) {'
  echo '  int total = 0;'
  body 125
  echo '}'
} >"$work/sample.cpp"
if out=$(python3 "$script" --max-lines 120 --check "$work/sample.cpp"); then
  echo "FAIL: --check passed a function of 127 lines without a reason"; echo "$out"; exit 1
fi
grep -q 'sample.cpp:3: long_one: 127 lines$' <<<"$out" || { echo "FAIL: long_one not listed as 127 lines"; echo "$out"; exit 1; }
grep -q 'Box::Box: 128 lines (reason: a test of the reason.)' <<<"$out" || { echo "FAIL: Box::Box's reason"; echo "$out"; exit 1; }
grep -q '2 functions over 120 lines, 1 without a reason' <<<"$out" || { echo "FAIL: the count"; echo "$out"; exit 1; }
! grep -q 'short_one\|Box::f\|kTable' <<<"$out" || { echo "FAIL: a short one listed"; echo "$out"; exit 1; }
# The product tree keeps the rule.
python3 "$script" --max-lines 120 --check
echo "ok"
