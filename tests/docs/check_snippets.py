#!/usr/bin/env python3
"""Every ```cpp block of the given markdown files must appear verbatim (up to
whitespace) in one of the SNIPPET regions of the given test sources, so the
documentation's code is compiled and run by the test suite. Likewise every
code block that is a plan dump (it starts "// streamdsl plan:") must be the
raw string of one of the PLAN regions (// PLAN: name ... R"(...)" ...
// END PLAN), which the tests compare with the program's to_string().

usage: check_snippets.py --docs a.md b.md --sources t.cpp ..."""
import re
import sys


def normalise(text):
    # Whitespace is clang-format's business (the tests are formatted, the docs
    # keep their own layout): compare the code with all whitespace removed.
    return "".join(text.split())


def main():
    args = sys.argv[1:]
    docs = args[args.index("--docs") + 1:args.index("--sources")]
    sources = args[args.index("--sources") + 1:]
    snippets = []
    plans = []
    for path in sources:
        text = open(path).read()
        snippets += [normalise(m) for m in re.findall(r"// SNIPPET: [\w-]+\n(.*?)// END SNIPPET", text, re.S)]
        for region in re.findall(r"// PLAN: [\w-]+\n(.*?)// END PLAN", text, re.S):
            plans += [normalise(m) for m in re.findall(r'R"\((.*?)\)"', region, re.S)]
    failed = 0
    checked = 0
    for path in docs:
        for block in re.findall(r"```cpp\n(.*?)```", open(path).read(), re.S):
            checked += 1
            if normalise(block) not in snippets:
                failed += 1
                print(f"{path}: a cpp block is not a tested snippet:\n{block}")
        for block in re.findall(r"```\w*\n(// streamdsl plan:.*?)```", open(path).read(), re.S):
            checked += 1
            if normalise(block) not in plans:
                failed += 1
                print(f"{path}: a plan dump is not a tested plan (a PLAN region the tests compare with "
                      f"to_string()):\n{block}")
    print(f"{checked - failed} passed, {failed} failed")
    return 1 if failed or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
