"""`lait graph FILE [--format mermaid|dot]` (docs/workflows.md): actions as rectangles,
control steps as diamonds, stop/break as terminals, conditions and branch names as edge labels,
subgraphs for bodies, branches, cases and on_error, child workflows not expanded, decide question
ids; both syntaxes checked for dangling edges and balanced blocks; the CLI's errors."""

from __future__ import annotations

import re
from pathlib import Path

from lait_core.commands.workflow_graph import build_graph, render_graph, to_dot, to_mermaid
from lait_core.documents.workflow_file import parse_workflow
from tests.cli.conftest import EXAMPLES, Lait

FLOW = """\
name: flow
steps:
  - id: first
    prompt: "Say \\"hi\\" | {{ input }}"
  - id: route
    switch:
      - when: '.kind == "a"'
        steps:
          - jq: '.a'
      - when: '.kind == "b"'
        steps:
          - stop: true
    else:
      - agent: helper
  - id: both
    parallel:
      left:
        - run: [echo, left]
      right:
        - workflow: ./child.yml
  - id: loop
    for_each: '.items'
    steps:
      - decide:
          urgent: {type: noul}
          team: {type: choice, criteria: {a: null, b: null}}
      - when: '.done'
        break: true
    on_error:
      - jq: '.error'
  - id: last
    when: '.ok'
    jq: '.'
"""


def mermaid_problems(text: str) -> list[str]:
    """Edges to undeclared nodes and unbalanced subgraph/end lines."""
    declared = set(re.findall(r"^\s*(n\w+)[\[{(]", text, re.M))
    problems = []
    depth = 0
    for line in text.splitlines()[1:]:
        stripped = line.strip()
        if stripped.startswith("subgraph "):
            depth += 1
        elif stripped == "end":
            depth -= 1
        elif "-->" in stripped or "-.->" in stripped:
            parts = stripped.split()
            source, target = parts[0], parts[-1]
            problems += [f"undeclared {n}" for n in (source, target) if n not in declared]
    if depth:
        problems.append(f"unbalanced subgraphs ({depth})")
    return problems


def test_shapes_labels_and_subgraphs_in_mermaid() -> None:
    doc = parse_workflow(FLOW, "flow.yml")
    assert doc.ok
    out = render_graph(doc, "mermaid")
    assert out.startswith("flowchart TD\n")
    assert mermaid_problems(out) == []
    lines = out.splitlines()
    # action: rectangle with escaped quotes and pipes; control: diamond; terminal: stadium
    assert '  n1["first (prompt)<br/>Say #quot;hi#quot; #124; {{ input }}"]' in lines
    assert '  n2{"route (switch)"}' in lines
    assert '    n6(["step-4 (stop)"])' in lines
    assert '    n16["step-10 (decide)<br/>questions: urgent, team"]' in lines
    assert '    n13["step-8 (workflow)<br/>./child.yml (not expanded)"]' in lines
    assert '  n14{"loop (for_each)<br/>each of .items"}' in lines
    assert '  subgraph c3["route case 1"]' in lines
    assert '  subgraph c10["branch left"]' in lines
    assert '  subgraph c15["loop body"]' in lines
    assert '  subgraph c18["on_error of loop"]' in lines
    edges = [line.strip() for line in lines if "->" in line]
    assert edges == [
        "n_start --> n1",
        "n1 --> n2",
        'n2 -->|"case 1: .kind == #quot;a#quot;"| n4',
        'n2 -->|"case 2: .kind == #quot;b#quot;"| n6',
        "n6 --> n_end",
        'n2 -->|"else"| n8',
        "n4 --> n9",
        "n8 --> n9",
        'n9 -->|"left"| n11',
        'n9 -->|"right"| n13',
        "n11 --> n14",
        "n13 --> n14",
        'n14 -->|"each item"| n16',
        'n16 -->|"when .done"| n17',
        'n16 -->|"skipped; next"| n14',
        'n14 -.->|"on error"| n19',
        'n14 -->|"done; when .ok"| n20',
        'n17 -->|"break; when .ok"| n20',
        'n19 -->|"when .ok"| n20',
        'n14 -->|"done; skipped"| n_end',
        'n17 -->|"break; skipped"| n_end',
        'n19 -->|"skipped"| n_end',
        "n20 --> n_end",
    ]


def test_edges_of_the_flow() -> None:
    graph = build_graph(parse_workflow(FLOW, "flow.yml"))
    nodes = {n.id: n for n in graph.nodes()}
    shapes = {n.text.split("\n")[0]: n.shape for n in nodes.values()}
    assert shapes["first (prompt)"] == "action"
    assert shapes["route (switch)"] == "control"
    assert shapes["both (parallel)"] == "control"
    assert shapes["loop (for_each)"] == "control"
    assert shapes["step-4 (stop)"] == "terminal"
    assert shapes["step-11 (break)"] == "terminal"
    by_label = {
        (nodes[e.source].text.split("\n")[0], nodes[e.target].text.split("\n")[0], e.label, e.dashed)
        for e in graph.edges
    }
    assert ("route (switch)", "step-3 (jq)", 'case 1: .kind == "a"', False) in by_label
    assert ("step-4 (stop)", "end", "", False) in by_label
    assert ("route (switch)", "step-5 (agent)", "else", False) in by_label
    assert ("both (parallel)", "step-7 (run)", "left", False) in by_label
    assert ("loop (for_each)", "step-10 (decide)", "each item", False) in by_label
    assert ("step-10 (decide)", "loop (for_each)", "skipped; next", False) in by_label
    assert ("loop (for_each)", "step-12 (jq)", "on error", True) in by_label
    assert ("step-12 (jq)", "last (jq)", "when .ok", False) in by_label
    assert ("loop (for_each)", "last (jq)", "done; when .ok", False) in by_label
    assert ("step-11 (break)", "last (jq)", "break; when .ok", False) in by_label
    # a skipped `last` goes around it to the end
    assert ("loop (for_each)", "end", "done; skipped", False) in by_label
    # the stop branch does not continue to `both`
    assert not any(s == "step-4 (stop)" and t == "both (parallel)" for s, t, _l, _d in by_label)


def test_dot_is_well_formed() -> None:
    out = to_dot(build_graph(parse_workflow(FLOW, "flow.yml")))
    assert out.startswith('digraph workflow {\n  label="flow";\n  rankdir=TB;\n')
    declared = set(re.findall(r"^\s*(n\w+) \[label=", out, re.M))
    for source, target in re.findall(r"^\s*(n\w+) -> (n\w+)", out, re.M):
        assert source in declared and target in declared
    assert '  n1 [label="first (prompt)\\nSay \\"hi\\" | {{ input }}", shape=box];' in out
    assert '  n2 [label="route (switch)", shape=diamond];' in out
    assert "shape=oval" in out and "subgraph cluster_c3 {" in out
    assert '  n14 -> n19 [label="on error", style=dashed];' in out
    opened = sum(line.rstrip().endswith("{") for line in out.splitlines())
    closed = sum(line.strip() == "}" for line in out.splitlines())
    assert opened == closed


def test_the_example_workflows_graph_cleanly() -> None:
    for path in sorted((EXAMPLES / "workflows").glob("*.yml")):
        doc = parse_workflow(path.read_text(encoding="utf-8"), str(path))
        assert doc.ok
        assert mermaid_problems(to_mermaid(build_graph(doc))) == []


def test_the_cli(lait: Lait) -> None:
    lait.write("flow.yml", FLOW)
    mermaid = lait("graph", "flow.yml")
    assert (mermaid.returncode, mermaid.stderr) == (0, "")
    assert mermaid.stdout == render_graph(parse_workflow(FLOW, "flow.yml"), "mermaid")
    dot = lait("graph", "flow.yml", "--format", "dot")
    assert dot.stdout.startswith("digraph workflow {")
    bad_format = lait("graph", "flow.yml", "--format", "svg")
    assert (bad_format.returncode, bad_format.stderr) == (
        2,
        "lait: unknown --format 'svg'; expected one of: mermaid, dot\n",
    )
    lait.write("bad.yml", "steps:\n  - jq: '.['\n")
    bad = lait("graph", "bad.yml")
    assert bad.returncode == 3
    assert bad.stderr.splitlines()[0].startswith("bad.yml:2:")
    lait.write("lait.config.yml", "workflows:\n  named: flow.yml\n")
    named = lait("graph", "named", "-o", "out.mmd")
    assert (named.returncode, named.stdout) == (0, "")
    assert Path(lait.cwd / "out.mmd").read_text().startswith("flowchart TD\n")
    (lait.cwd / "graphs").mkdir()
    into_dir = lait("graph", "bad.yml", "-o", "graphs")  # refused before the file is read
    assert (into_dir.returncode, into_dir.stdout) == (2, "")
    assert into_dir.stderr == "lait: -o 'graphs' is a directory; name a file to write the graph to\n"
    no_folder = lait("graph", "flow.yml", "-o", "nope/g.mmd")
    assert (no_folder.returncode, no_folder.stderr) == (
        2,
        "lait: -o 'nope/g.mmd': the folder 'nope' does not exist\n",
    )
