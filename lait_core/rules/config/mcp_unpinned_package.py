"""LAIT113 mcp-unpinned-package: an MCP server started by a package runner without a version."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode, SequenceNode

CODE = "LAIT113"
C = "lait.config.yml"

RULE = rule(
    CODE,
    "mcp-unpinned-package",
    Severity.WARNING,
    "An MCP server runs a package through `npx`/`uvx` without naming its version.",
    "`npx -y some-mcp` (likewise `bunx`, `pnpx`, `uvx`) runs whatever version the registry has today: "
    "a new release can change the server's tools, their descriptions (instructions the model reads) "
    "or what they do, under the same config. Name the version, `some-mcp@1.4.2` (`uvx`: "
    "`some-mcp==1.4.2`), and pin the tools with `lait mcp lock`. `@latest` and `@next` count as no version.",
    Example("mcp_servers:\n  fs:\n    command: npx\n    args: [-y, '@scope/server-fs', .]\n", filename=C),
    Example(
        "mcp_servers:\n  fs:\n    command: npx\n    args: [-y, '@scope/server-fs@2025.8.21', .]\n", filename=C
    ),
)


def check(root: MappingNode, out: list[Diagnostic]) -> None:
    from lait_core.engine.mcp.packages import runner_package_index

    servers = root.get("mcp_servers")
    if not isinstance(servers, MappingNode):
        return
    for name, _key, server in servers.items():
        if not isinstance(server, MappingNode):
            continue
        command, args = server.get("command"), server.get("args")
        if not isinstance(command, ScalarNode) or not isinstance(command.value, str):
            continue
        items = args.items if isinstance(args, SequenceNode) else []
        if not all(isinstance(a, ScalarNode) and isinstance(a.value, str) for a in items):
            continue
        texts = [str(a.value) for a in items if isinstance(a, ScalarNode)]
        found = runner_package_index(command.value, texts)
        if found is None or found[1] or "${" in texts[found[0]]:
            continue
        out.append(
            Diagnostic(
                CODE,
                f"MCP server '{name}' runs '{texts[found[0]]}' without a version, so a new release can change "
                "its tools under this config; name one (like pkg@1.2.3) and pin the tools with 'lait mcp lock'",
                items[found[0]].range,
                Severity.WARNING,
            )
        )
