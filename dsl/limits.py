"""The bounds of the engine, in one place, each with its reason.

Every bound is far above what a real game needs (the bundled games are the yardstick, measured
figures in brackets) and low enough that a mistaken or hostile input is refused with a located
message before it costs minutes, gigabytes or a Python traceback. docs/reliability.md lists them.
"""

# -- rules text (parser)
MAX_NESTING = 100  # levels of the parse tree: `not not ... x`, `a + b + ...`, chains of `else if`
#                    [bundled games: 23]; keeps the AST, checker, compiler and formatter within
#                    Python's recursion limit
MAX_DIGITS = 15  # digits of one number literal [4]; Python refuses to convert more than 4300

# -- values the exporters draw (checker)
MAX_STEPS = 99  # steps of a unit type [4]: a counter face and a VASSAL layer for each
MAX_TURNS = 999  # turns of a scenario [36]: a box on the turn track for each
MAX_DICE = 100  # dice in one roll [3]
MAX_FACES = 1000  # faces of a die [12]

# -- evaluation (interpreter)
MAX_CALL_DEPTH = 100  # rules calling rules, triggers firing triggers [about 12]
MAX_UNITS = 10_000  # units created in one game [about 400]
MAX_RANGE = 1_000_000  # elements of one range(a, b) [about 100]; the step limit counts them too
MAX_MAGNITUDE = 10**18  # a number computed by the rules, and a fraction's terms [VP, IPCs: thousands];
#                         repeated doubling would otherwise grow a number until memory runs out
MAX_LENGTH = 1_000_000  # characters of a string, elements of a list joined with `+`
