"""Every config-level check of a config file, each in its rule's module (:mod:`lait_core.rules.config`
and the config checks of :mod:`lait_core.rules.security`). They run on each config file with its own
located tree."""

from __future__ import annotations

from pathlib import Path

from lait_core.documents.config_file import ConfigDocument
from lait_core.rules.config import mcp_unpinned_package
from lait_core.rules.config.api_key_pair import check_api_keys
from lait_core.rules.config.env_placeholder import check_placeholders
from lait_core.rules.config.mcp_oauth import check_mcp_oauth
from lait_core.rules.config.missing_gguf_file import check_gguf_files
from lait_core.rules.config.missing_workflow_file import check_registry
from lait_core.rules.config.no_effect_key import check_no_effect
from lait_core.rules.config.prompt_undeclared_var import check_prompt_vars
from lait_core.rules.config.prompt_unknown_name import check_prompt_names
from lait_core.rules.config.python_from_path import check_python_from_path
from lait_core.rules.config.tool_definition import check_tools
from lait_core.rules.security import literal_secret, mcp_env_inherited, option_injection, shell_interpolation
from lait_core.syntax.diagnostics import Diagnostic


def check_config(doc: ConfigDocument) -> list[Diagnostic]:
    """Every config-level check of one config file (it must have loaded)."""
    out: list[Diagnostic] = []
    root = doc.root
    if root is None:
        return out
    check_api_keys(root, out)
    check_tools(root, out)
    check_registry(root, Path(doc.path).parent, out)
    check_gguf_files(root, Path(doc.path).parent, out)
    check_placeholders(root, out)
    option_injection.check(root, out)
    literal_secret.check(root, doc.path, out)
    mcp_env_inherited.check(root, out)
    shell_interpolation.check_config(root, out)
    check_no_effect(root, out)
    check_mcp_oauth(root, out)
    mcp_unpinned_package.check(root, out)
    check_prompt_vars(root, out)
    check_prompt_names(root, out)
    check_python_from_path(root, out)
    return out
