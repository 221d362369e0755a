#!/usr/bin/env python3
"""docs/reference.md names every public name, every elementwise op and
every compile error kind.

1. Every op of ir/op_table.hpp with a spelling has a row of the reference's
   operator table whose first cell is that spelling in backticks
   ("| `+` |", "| `sd::exp` |"; a pipe written as "\\|" inside the cell).
2. Every compile error kind of diag/error_kind.hpp is linked to its entry
   in errors.md.
3. Every name declared at namespace scope of `streamdsl` (not a nested
   namespace: detail, ir, passes, ... are internal) in a user-facing header
   appears in backticks in the reference, bare or as sd::name, alone or
   followed by template arguments or a call ("`sd::bind(...)`",
   "`sd::input<T, Space>`"); and so does every public member function of the
   classes whose members users call (plan_view's queries, the executors, the
   timeline, call_context, cuda_graph). Names that are public only for the
   library's own use are listed in INTERNAL below, each with its reason: a new
   public name fails this check until it is documented or listed there.
4. Every link of the reference to a page of docs/, and to a heading of it,
   resolves.
5. Every sd::name the reference writes is declared by a user header (no
   invented API).

usage: check_reference.py --reference docs/reference.md --include include/streamdsl
"""
import os
import re
import sys

# Headers whose namespace-scope names in `streamdsl` are user API (relative to
# include/streamdsl). The umbrella header's own includes, and the executors'.
USER_HEADERS = [
    "program.hpp",
    "passes/options.hpp",
    "dsl/builder.hpp",
    "dsl/buffer.hpp",
    "dsl/chunk.hpp",
    "dsl/domain.hpp",
    "dsl/event.hpp",
    "dsl/expr.hpp",
    "dsl/family.hpp",
    "dsl/functions.hpp",
    "dsl/memory_space.hpp",
    "dsl/param.hpp",
    "dsl/stream.hpp",
    "ops/call.hpp",
    "ops/collective.hpp",
    "ir/reduce_op.hpp",
    "backend/host/loopback.hpp",
    "backend/host/communicator.hpp",
    "backend/cuda/executor_group.hpp",
    "backend/cuda/nccl_communicator.hpp",
    "ops/copy.hpp",
    "ops/matmul.hpp",
    "ops/reduce.hpp",
    "ops/scan.hpp",
    "ir/dtype.hpp",
    "diag/error.hpp",
    "plan/plan_view.hpp",
    "plan/plan_types.hpp",
    "plan/plan_model.hpp",
    "plan/to_string.hpp",
    "plan/to_dot.hpp",
    "plan/workspace_layout.hpp",
    "backend/bindings.hpp",
    "backend/call_context.hpp",
    "backend/timeline.hpp",
    "backend/chrome_trace.hpp",
    "backend/host/host_executor.hpp",
    "backend/host/stress.hpp",
    "backend/cuda/cuda_executor.hpp",
    "backend/cuda/cuda_graph.hpp",
    "backend/cuda/run_options.hpp",
    "backend/cuda/cuda_error.hpp",
    "backend/cuda/device_bindings.hpp",
]

# Classes whose public member functions users call: (header, class).
MEMBER_CLASSES = [
    ("program.hpp", "compiled_program"),
    ("dsl/builder.hpp", "builder"),
    ("dsl/buffer.hpp", "buffer"),
    ("dsl/stream.hpp", "stream"),
    ("dsl/event.hpp", "event"),
    ("dsl/family.hpp", "family"),
    ("plan/plan_view.hpp", "plan_view"),
    ("backend/timeline.hpp", "timeline"),
    ("backend/call_context.hpp", "call_context"),
    ("backend/host/host_executor.hpp", "host_executor"),
    ("backend/cuda/cuda_executor.hpp", "cuda_executor"),
    ("backend/cuda/cuda_graph.hpp", "cuda_graph"),
]

# Public for the library's own use, not for users: name -> why.
INTERNAL = {
    # program.hpp
    "build_ir": "the IR before any pass, for the passes' own tests",
    # ir/dtype.hpp: the type rules the front end and the backends evaluate
    "dtype_count": "type-system internals (the number of dtype enumerators)",
    "dtype_category": "type-system internals",
    "strength": "type-system internals (how strongly an operand promotes)",
    "category_of": "type-system internals",
    "is_unsigned_integer": "type-system internals",
    "is_signed_integer": "type-system internals",
    "compatible": "type-system internals",
    "signed_integer_of_size": "type-system internals",
    "promote_integers": "type-system internals",
    "floating_rank": "type-system internals",
    "promote": "type-system internals",
    "typed": "type-system internals",
    "default_of": "type-system internals",
    "combine": "type-system internals",
    "combinable": "type-system internals",
    "assignable": "type-system internals",
    "dtype_traits": "type-system internals (dtype_v reads it)",
    "literal_scalar": "type-system internals (what a weak literal may be)",
    "literal_dtype": "type-system internals",
    "dtype_info": "type-system internals (a row of the dtype table)",
    "info_of": "type-system internals (a dtype's row)",
    "is_cuda_type": "type-system internals (whether a dtype needs CUDA's headers)",
    "is_fp8": "type-system internals",
    "cuda_executor::check_collectives": "the executor's own check before launch, public for the executor group",
    "cuda_executor::agree_on_collectives": "the ranks' agreement before the first run, public for the executor group",
    # plan types: the arrays behind plan_view, read by executors and tests
    "op_kind": "plan internals (plan_view::ops' kinds)",
    "plan_op": "plan internals (an element of plan_view::ops)",
    "kernel_info": "plan internals (an element of plan_view::kernels)",
    "slot_info": "plan internals (an element of plan_view::slots)",
    "name_of": "plan and type internals (a sync role's or dtype's name)",
    "sizes_of": "plan internals",
    "plan_model": "the result of sd::passes::schedule, documented with it",
    "note_capacity": "plan internals",
    "notes_bound": "plan internals",
    "lay_out_workspace": "the layout plan_view::workspace_bytes and the executors share",
    # plan_view members for executors and the dump
    "plan_view::known_stream": "the checked lookup the queries use",
    "plan_view::known_buffer": "the checked lookup the queries use",
    "plan_view::segments_of": "multi-tensor launches, for executors",
    "plan_view::kernel_statements": "for executors and the dump",
    "plan_view::record_numbers": "the dump's record numbering",
    "plan_view::name_sync": "the dump's naming",
    "plan_view::is_edge": "for executors and the dump",
    # call_context
    "call_context::listed": "untyped access for generic callables, beside read<T>(i) and write<T>(i)",
    "call_context::read_count": "counts, beside read<T>(i)",
    "call_context::write_count": "counts, beside write<T>(i)",
    # timeline
    "timeline::begin": "called by the executors",
    "timeline::add": "called by the executors",
    "timeline::end": "called by the executors",
    # executors
    "host_executor::options": "returns the host_options it was made with",
    "cuda_executor::run_bound": "run's engine",
    "cuda_executor::check_workspace_buffer": "run's engine",
    "cuda_executor::prepare": "run's and capture's engine",
    "cuda_executor::lay_out_reduce_storage": "run's engine",
    "cuda_executor::lay_out_matmuls": "run's engine",
    "cuda_executor::issue": "run's and capture's engine",
    "cuda_executor::check_memory_spaces": "run's engine",
    "cuda_executor::max_blocks": "the grid limit it computed, for tests",
    "cuda_graph::updates": "a counter for tests",
    "cuda_graph::instantiations": "a counter for tests",
    # namespace-scope names of the executors' headers
    "resolved_bindings": "a forward declaration of the executor's",
    "binding_list": "the argument type of run(bindings): any contiguous container of sd::binding",
    "call_region": "an executor's layout of a region for call_context",
    "native_stream": "the type of call_context::stream()",
    "timeline_request": "the type sd::record_timeline returns",
    "caller_event_role": "run-option internals",
    "caller_events": "run-option internals (what sd::after returns)",
    "stream_first_resource": "run-option internals (workspace_resource's two shapes)",
    "workspace_resource": "run-option internals (what sd::workspace_from accepts)",
    "workspace_allocator": "run-option internals (what sd::workspace_from returns)",
    "workspace_buffer": "run-option internals (what sd::workspace_in returns)",
}


def strip_template_arguments(line):
    """The line with its balanced <...> lists removed (operators << and <=
    aside), so that a declaration's return type is one word."""
    out, depth = [], 0
    i = 0
    while i < len(line):
        c = line[i]
        if line.startswith("<<", i) or line.startswith("<=", i) or line.startswith(">>", i):
            if depth == 0:
                out.append(line[i:i + 2])
            i += 2
            continue
        if c == "<":
            depth += 1
        elif c == ">" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(c)
        i += 1
    return "".join(out)


def names_in_namespace(path):
    """Names declared at namespace scope of `streamdsl` itself in `path`."""
    names = []
    stack = []
    for line in open(path):
        m = re.match(r"^namespace ([\w:]+) \{", line)
        if m:
            stack.append(m.group(1))
            continue
        if re.match(r"^\}  // namespace", line):
            stack.pop()
            continue
        if stack != ["streamdsl"]:
            continue
        # A requires-clause's last line, indented, ends in the declaration.
        m = re.match(r"^\s+requires [\w:]+ [\w:]+ (\w+)\(", strip_template_arguments(line))
        if m:
            names.append(m.group(1))
            continue
        if line[:1] in (" ", "#", "/", "}", "\n", "\t"):
            continue
        line = strip_template_arguments(line)
        for pattern in (
            r"^(?:class|struct|enum class|concept) (\w+)",
            r"^concept (\w+)",
            r"^(?:inline )?constexpr [\w:<>, ]+? (\w+)(?:\{| =)",
            r"^using (\w+) =",
            r"^STREAMDSL_(?:UNARY|BINARY|REDUCTION)\w*\((\w+)\)",
            r"^(?:(?:inline|constexpr|consteval|\[\[[^\]]*\]\]) )*[\w:<>&*,]+(?: [\w:<>&*,]+)* [&*]?(\w+)\(",
        ):
            m = re.match(pattern, line)
            if m:
                names.append(m.group(1))
                break
    return names


def code_only(line):
    """The line without its string and character literals and its comment."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(?:\\.|[^'\\])'", "''", line)
    return line.split("//")[0]


def public_members(path, cls):
    """Public member functions of class or struct `cls` in `path` (the lines
    at the class body's own brace depth)."""
    lines = open(path).read().split("\n")
    start = next((i for i, l in enumerate(lines) if re.match(r"^(class|struct) %s\b[^;]*\{" % re.escape(cls), l)),
                 None)
    if start is None:
        return []
    public = lines[start].startswith("struct")
    depth = 1
    names = []
    continued = False  # the previous line ended in a backslash: a macro's definition goes on
    for line in lines[start + 1:]:
        code = code_only(line)
        in_macro = continued or code.lstrip().startswith("#")
        continued = code.rstrip().endswith("\\")
        if in_macro:
            continue
        if depth == 1:
            if re.match(r"^\s*public:", code):
                public = True
            elif re.match(r"^\s*(private|protected):", code):
                public = False
            elif public and not re.match(r"^\s*[:,]", code):  # not a constructor's initialisers
                m = re.match(r"^\s*(?:(?:static|constexpr|explicit|inline|template <[^>]*>|\[\[[^\]]*\]\]) )*"
                             r"[\w:<>&*,]+(?: [\w:<>&*,]+)* [&*]?(\w+)\(", code)
                if m and m.group(1) not in (cls, "operator", "requires"):
                    names.append(m.group(1))
        depth += code.count("{") - code.count("}")
        if depth <= 0:
            break
    return names


def slug(heading):
    """GitHub's anchor for a heading."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    text = re.sub(r"```.*?```", "", open(path).read(), flags=re.S)
    return {slug(h) for h in re.findall(r"^#+ (.*)$", text, re.M)}


def check_links(reference_path):
    """Every link of the reference to a page of docs/ (and to a heading of
    one) resolves."""
    failed = 0
    docs = os.path.dirname(os.path.abspath(reference_path))
    for target, anchor in re.findall(r"\]\(([\w.]*\.md)?(?:#([\w-]+))?\)", open(reference_path).read()):
        path = os.path.join(docs, target) if target else reference_path
        if not os.path.exists(path):
            print(f"FAIL: link to {target}, which is not a page of docs/")
            failed += 1
        elif anchor and anchor not in anchors(path):
            print(f"FAIL: link to {target}#{anchor}: {target or 'the reference'} has no such heading")
            failed += 1
    return failed


def main():
    args = sys.argv[1:]
    reference = open(args[args.index("--reference") + 1]).read()
    include = args[args.index("--include") + 1]
    failed = check_links(args[args.index("--reference") + 1])

    spans = set(re.findall(r"`([^`\n]+)`", reference))
    # A name counts when a code span is the name, sd::name, or either
    # followed by template arguments, a call or a member access.
    documented = set()
    for span in spans:
        for m in re.finditer(r"(?:^|[^\w:])(?:sd::|p\.|\.)?(\w+)(?=$|[<(.\s,;\[]|::)", span):
            documented.add(m.group(1))
        m = re.match(r"^(?:sd::)?(\w+)", span)
        if m:
            documented.add(m.group(1))

    # 1. the op table
    table = open(os.path.join(include, "ir/op_table.hpp")).read()
    rows = re.findall(r'^\s*\{op::(\w+),\s*"(\w+)",\s*"([^"]*)"', table, re.M)
    if not rows:
        print("FAIL: no rows found in ir/op_table.hpp")
        return 1
    for code, name, spelling in rows:
        if not spelling:
            continue  # load, param, literal: leaves, written as names and values
        cell = spelling.replace("|", "\\|")
        first_cells = [f"| `{cell}` |", f"| `sd::{cell}` |", f"| `sd::{cell}<T>` |"]
        if any(c in reference for c in first_cells):
            print(f"ok: op {name} ({spelling}) has a row")
        else:
            print(f"FAIL: op {name} of ir/op_table.hpp has no row '| `{cell}` |' or '| `sd::{cell}` |' "
                  f"in the reference's operator table")
            failed += 1

    # 2. the compile errors' kinds (diag/error_kind.hpp), each linked to errors.md
    kinds = re.findall(r'return "(\w+)";', open(os.path.join(include, "diag/error_kind.hpp")).read())
    for kind in kinds:
        if kind in ("none", "?"):
            continue
        if f"(errors.md#{kind})" in reference:
            print(f"ok: error kind {kind} is linked")
        else:
            print(f"FAIL: error kind {kind} (diag/error_kind.hpp) has no link [`{kind}`](errors.md#{kind}) "
                  f"in the reference")
            failed += 1

    # 3. public names
    seen = set()
    for header in USER_HEADERS:
        path = os.path.join(include, header)
        if not os.path.exists(path):
            print(f"FAIL: {header} is listed as a user header but does not exist")
            failed += 1
            continue
        for name in names_in_namespace(path):
            if name in seen:
                continue
            seen.add(name)
            if name in INTERNAL:
                continue
            if name in documented:
                print(f"ok: {name} ({header})")
            else:
                print(f"FAIL: public name {name} ({header}) appears in no code span of the reference; "
                      f"document it, or list it in INTERNAL in {sys.argv[0]} with the reason")
                failed += 1
    for header, cls in MEMBER_CLASSES:
        members = public_members(os.path.join(include, header), cls)
        if not members:
            print(f"FAIL: found no public members of {cls} in {header}")
            failed += 1
        for name in members:
            key = f"{cls}::{name}"
            if key in seen:
                continue
            seen.add(key)
            if key in INTERNAL:
                continue
            if name in documented:
                print(f"ok: {key}")
            else:
                print(f"FAIL: public member {key} ({header}) appears in no code span of the reference; "
                      f"document it, or list it in INTERNAL in {sys.argv[0]} with the reason")
                failed += 1
    # 5. no invented API: every sd::name the reference writes is declared
    known = {key.split("::")[-1] for key in seen} | {"passes"}  # sd::passes::schedule
    for name in sorted(set(re.findall(r"\bsd::(\w+)", reference))):
        if name not in known:
            print(f"FAIL: the reference writes sd::{name}, which no user header declares")
            failed += 1
    stale = [n for n in INTERNAL if n not in seen]
    for name in stale:
        print(f"FAIL: INTERNAL lists {name}, which no user header declares any more")
        failed += 1
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
