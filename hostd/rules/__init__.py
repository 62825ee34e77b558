"""The rules of the games the table deals, pure domain code that imports nothing of ours
but hostd/errors.py: every other package may import it, it imports none of them.

Modules: ``rulesets`` (each ruleset's profile: tiles, sets, walls, the break, Mixed Deck;
docs/RULESETS.md), ``dice`` (throws, the break's rule, the roller), ``game`` (each
ruleset's game rules as data with their seed citations: start points, rounds, payments;
docs/SCORING.md).
"""
