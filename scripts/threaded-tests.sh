#!/usr/bin/env bash
# Prints, one a line, the test classes that exercise more than one thread:
# those ThreadSanitizer runs (scripts/sanitize.sh). The rule, applied to the
# sources so that a new test cannot slip past it: a class in Tests/KameraTests
# (the VM classes aside: they run in the emulated VM) is threaded when its own
# code names
#   - a thread or a queue: Thread, DispatchQueue, DispatchGroup,
#     concurrentPerform, OperationQueue, an async call;
#   - a Kamera type that starts threads: every type declared in a file under
#     Sources/ that creates a thread, a dispatch queue or a parallel loop
#     (the capture queue, the render thread, parallel rows, the PNG encoding
#     pool, recording and sound, analysis, ...);
#   - a number of threads it asks for (`threads:`);
#   - a signal or a kamera process it talks to while it runs (kill, SIG...,
#     .start(): stop signals, exit paths and the watchdog.
# A test method is threaded when its own code names one of these; every test
# of a class is when the class's shared code (helpers, set-up) does. Printed
# as "Class" (all its tests) or "Class/testMethod".
# ThreadSanitizerRuleTests checks what this prints against classes known to be threaded and not.
#   scripts/threaded-tests.sh [ROOT]
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
primitives='Thread *[({]|pthread_create|DispatchQueue *\(|DispatchQueue\.global|concurrentPerform|detachNewThread'
# Types declared in the files that start threads.
types="$({ grep -rlE "$primitives" "$root/Sources" --include='*.swift' || true; } | xargs -r grep -hoE '^(public |final |private |internal |fileprivate )*(class|struct|enum|actor) [A-Z][A-Za-z0-9]*' \
    | awk '{ print $NF }' | sort -u | paste -sd'|' -)"
words="\\b(Thread|RenderThread|JoinableThread|DispatchQueue|DispatchGroup|concurrentPerform|OperationQueue|async|kill|SIG[A-Z]+|signal)\\b|\\.start\\(|\\bthreads:"
[ -n "$types" ] && words="$words|\\b($types)\\b"
# Each class's text runs from its declaration to the next top-level
# declaration, each test method's from its `func test` to its closing brace.
# Lines go out as "Class<TAB>method<TAB>line" (method "*" for the class's
# own helpers, set-up and properties), and the words are looked for in them.
for file in "$root"/Tests/KameraTests/*.swift; do
    awk '
        function braces(text,   opened, closed) { opened = gsub(/\{/, "{", text); closed = gsub(/\}/, "}", text); return opened - closed }
        /^(final )?class [A-Za-z0-9]+Tests[^A-Za-z0-9]/ { name = $0; sub(/^(final )?class /, "", name); sub(/[^A-Za-z0-9].*/, "", name); method = ""; next }
        /^[a-z@}]/ && !/^}/ { name = ""; next }
        name == "" || name ~ /VMTests$/ || /^ *\/\/\// { next }
        method == "" && /^    (override )?func test[A-Za-z0-9_]*\(/ { method = $0; sub(/^ *(override )?func /, "", method); sub(/\(.*/, "", method); depth = 0 }
        method != "" { print name "\t" method "\t" $0; depth += braces($0); if (depth <= 0 && /\}/) method = ""; next }
        { print name "\t*\t" $0 }
    ' "$file"
done | grep -E $'^[^\t]*\t[^\t]*\t'".*($words)" | cut -f1,2 | sort -u \
    | awk -F'\t' '$2 == "*" { whole[$1] = 1; next } { methods[$1] = methods[$1] " " $2 }
        END { for (c in whole) print c; for (c in methods) if (!(c in whole)) { n = split(methods[c], m, " "); for (i = 1; i <= n; i++) print c "/" m[i] } }' | sort
