"""Every rule, one module per rule in a folder per family (``files``, ``config``, ``agents``,
``workflows``, ``templates``, ``capabilities``, ``security``, ``testfiles``, ``foreign``).

A rule module defines the rule's ``CODE``, registers its doc and examples with
:func:`lait_core.rules.registry.rule` and holds its check; a loader that reports the code itself
(the YAML parser, the document models) imports ``CODE`` from it. Importing a rule module imports
nothing else of the family, so a loader can import its codes without a cycle;
:func:`lait_core.rules.registry.all_rules` imports every module."""
