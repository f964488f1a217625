"""The upstream algorithms as plain functions over plain values: no Django, no database, no files.

turns (3 s clusters of fire events), join (turns to the transcript prompt), evidence (why a way
fired), tool_cards (tool calls as display cards), highlight (their code as coloured HTML lines),
usage (one usage per message, its final line), pricing (list prices per model), timestamps (the
stamps agent-ways and Claude Code write), channels (trigger channel labels).
"""
