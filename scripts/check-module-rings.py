#!/usr/bin/env python3
"""Finds import rings between the modules of each crate: two or more sibling modules that
reach each other through `crate::…` or `super::…` paths. Exits non-zero when it finds one.

A module is a source file (`a/b.rs` or `a/b/mod.rs` is `a::b`); a file's own inline modules
belong to it. A path from `a::x` to `b::y` links the siblings `a` and `b` (the children of
their closest common parent), so rings between folders count as well as rings between files.
Test code (`#[cfg(test)]` modules, files named tests.rs) is left out: tests may reach anywhere.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def module_of(src: pathlib.Path, path: pathlib.Path) -> tuple:
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def strip_tests(text: str) -> str:
    """Drops `#[cfg(test)]` items (a `mod tests { … }` block to its closing brace)."""
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


PATH = re.compile(r"\b(crate|super)((?:::\w+)+|::\{)")


def targets(module: tuple, text: str, modules: set) -> set:
    found = set()
    text = re.sub(r"//[^\n]*", "", text)
    # `use a::{b, c::{d}}` groups: expand one level of braces after a prefix.
    for m in re.finditer(r"\b(crate|super(?:::super)*)((?:::\w+)*)::\{([^;]*?)\};", text, re.S):
        base = resolve(module, m.group(1), m.group(2))
        for item in re.split(r",", re.sub(r"\{[^}]*\}", "", m.group(3))):
            item = item.strip().split(" as ")[0].strip()
            if item:
                found.add(deepest(base + tuple(p for p in item.split("::") if p and p != "self"), modules))
        found.add(deepest(base, modules))
    for m in re.finditer(r"\b(crate|super(?:::super)*)((?:::\w+)+)", text):
        found.add(deepest(resolve(module, m.group(1), m.group(2)), modules))
    return {t for t in found if t is not None}


def resolve(module: tuple, head: str, rest: str) -> tuple:
    tail = tuple(p for p in rest.split("::") if p)
    if head == "crate":
        return tail
    ups = head.count("super")
    base = module[: len(module) - ups] if ups <= len(module) else ()
    return base + tail


def deepest(path: tuple, modules: set):
    for n in range(len(path), -1, -1):
        if path[:n] in modules:
            return path[:n]
    return None


def rings(src: pathlib.Path):
    files = [p for p in src.rglob("*.rs") if p.name != "tests.rs" and "tests" not in p.relative_to(src).parts[:-1]]
    files = [p for p in files if not p.relative_to(src).parts[0] == "bin"]
    modules = {module_of(src, p): p for p in files}
    graph = {m: set() for m in modules}
    for mod, path in modules.items():
        text = strip_tests(path.read_text())
        for t in targets(mod, text, set(modules)):
            # A module may use its ancestors' items (they are its parents) and its descendants.
            if t == mod or mod[: len(t)] == t or t[: len(mod)] == mod:
                continue
            common = 0
            while mod[common] == t[common]:
                common += 1
            a, b = mod[: common + 1], t[: common + 1]
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    # Tarjan's strongly connected components.
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out, graph


def main() -> int:
    bad = 0
    for src in sorted(ROOT.glob("crates/*/src")):
        crate = src.parent.name
        found, graph = rings(src)
        for comp in found:
            bad += 1
            names = ["::".join(c) or "(root)" for c in comp]
            print(f"{crate}: ring of {len(comp)} modules: {', '.join(names)}")
            for a in comp:
                for b in sorted(graph[a] & set(comp)):
                    print(f"    {'::'.join(a) or '(root)'} -> {'::'.join(b) or '(root)'}")
    if bad:
        print(f"{bad} import ring(s)")
        return 1
    print("no import rings between modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
