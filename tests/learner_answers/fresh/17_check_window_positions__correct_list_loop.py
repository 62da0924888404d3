"""correct: a loop that appends each kept token, returning a plain list of [text, position] pairs."""
KIND = "correct"
CHECKER = "check_window_positions"
LESSON = "17"


def answer(seen, sinks, window):
    rows = []
    for t in range(seen):
        if t < sinks or t >= seen - window:
            rows.append([t, len(rows)])
    return rows
