"""The terminal front end: ``tarot list``, ``tarot play``, ``tarot replay`` and ``tarot challenge``.

Each subcommand is a module here with a ``run(args)``; the ``tarot`` command itself
(:mod:`tarot_env.command`) parses the command line and calls them, as it calls the web room
(``tarot serve``) and the experiment scripts (``tarot bench``, ``arena``, ``train``). This front
end imports neither of the other two: what they share (the env facts, the legal moves, the agent
factory, the argument checks) lives below them (docs/design.md, "Layers").
"""
