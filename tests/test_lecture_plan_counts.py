"""Guide for lecturers, lecture plan and speaker notes agree: the number of sessions (lectures,
labs) the guide states is the plan's, and each lecture's minutes in the plan's table are the sum of the
speaker notes' minutes of the sections the plan lists for it (a section's minutes include its
subslides', whose `### ` sub-blocks share them out); with the opening minutes of the lessons it
starts (their title slide's subslides) a lecture stays within 90. Counts come from the plan,
never hard-coded; the guide's sentence and the plan's table are generated from the plan and
the course manifest (`python scripts/course.py --write`)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "notebooks" / "lecture_plan.md"
NOTES = ROOT / "notebooks" / "lectures"
_ROW = re.compile(r"^\| (\d+) \| (Lecture|Lab) \| .+ \| (\d+) \|$", re.M)
_SECTION = re.compile(r"^## Session (\d+) \((lecture|lab)\): ", re.M)
_LESSON_LINE = re.compile(
    r"^- \[(\d\d) · [^\]]+\]\(\d\d_\w+\.ipynb\) \(run time \d+ s\): (.+)$", re.M
)


def plan_table(text: str) -> dict[int, tuple[str, int]]:
    """Session number -> (kind, minutes in the notes) from the plan's overview table."""
    return {int(n): (kind.lower(), int(minutes)) for n, kind, minutes in _ROW.findall(text)}


def plan_sections(text: str) -> dict[int, list[tuple[str, str]]]:
    """Session number -> the (lesson NN, section heading) pairs its "Lessons and sections" lists
    (a lesson listed with "all sections" contributes every heading of its notes but "Exercises":
    exercises belong to the labs and the homework, not to a lecture's minutes)."""
    starts = list(_SECTION.finditer(text))
    sessions = {}
    for here, after in zip(starts, [*starts[1:], None], strict=True):
        body = text[here.end() : after.start() if after else len(text)]
        body = body.split("**Lessons and sections**", 1)[-1].split("\n**", 1)[0]
        sessions[int(here.group(1))] = [
            (nn, heading)
            for nn, sections in _LESSON_LINE.findall(body)
            for heading in (
                [h for h in note_minutes(nn) if h != "Exercises"]  # "all sections"
                if sections.strip() == "all sections"
                else [part.strip()[1:-1] for part in sections.split("; ")]
            )
        ]
    return sessions


def note_minutes(number: str) -> dict[str, int]:
    """Section heading -> its minutes, from ``notebooks/lectures/NN_notes.md`` (the section's
    own block, not the ``### `` sub-blocks of its subslides that follow it)."""
    text = (NOTES / f"{number}_notes.md").read_text(encoding="utf-8")
    blocks = re.split(r"^## ", text, flags=re.M)[1:]
    minutes = {}
    for block in blocks:
        heading, _, rest = block.partition("\n")
        own = re.split(r"^### ", rest, flags=re.M)[0]
        found = re.findall(r"\*\*Minutes:\*\* (\d+)", own)
        minutes[heading.strip()] = int(found[-1]) if found else 0
    return minutes


def subslide_minutes(number: str) -> dict[str | None, int]:
    """Section heading (None: the title slide) -> the minutes of its subslides' sub-blocks."""
    text = (NOTES / f"{number}_notes.md").read_text(encoding="utf-8")
    used: dict[str | None, int] = {}
    section = None
    for part in re.split(r"^(?=##+ )", text, flags=re.M):
        if part.startswith("## "):
            section = part[3:].partition("\n")[0].strip()
        elif part.startswith("### "):
            found = re.findall(r"\*\*Minutes:\*\* (\d+)", part)
            used[section] = used.get(section, 0) + (int(found[-1]) if found else 0)
    return used


def _heading(minutes: dict[str, int], listed: str) -> str | None:
    """The notes heading the plan means by ``listed`` (the plan may shorten it after a colon)."""
    plain = {h: h.replace("*", "") for h in minutes}  # the plan quotes headings without emphasis
    exact = [h for h in minutes if plain[h] == listed]
    matches = exact or [h for h in minutes if plain[h].startswith(listed)]
    return matches[0] if len(matches) == 1 else None


def test_the_guide_for_lecturers_states_the_plans_sessions_lectures_and_labs():
    plan = PLAN.read_text(encoding="utf-8")
    table = plan_table(plan)
    assert sorted(table) == list(range(1, len(table) + 1)) and len(table) >= 15
    sections = [int(n) for n, _ in _SECTION.findall(plan)]
    assert sections == sorted(table), "the table and the '## Session N' sections differ"
    lectures = sum(kind == "lecture" for kind, _ in table.values())
    labs = len(table) - lectures
    guide = (ROOT / "notebooks" / "guide_lecturers.md").read_text(encoding="utf-8")
    stated = re.findall(r"(\d+) sessions of 90 minutes \((\d+) lectures, (\d+) labs\)", guide)
    assert stated == [(str(len(table)), str(lectures), str(labs))], (
        f"the guide for lecturers says {stated}; the plan has {len(table)} sessions, {lectures} lectures, {labs} labs"
    )
    intro = re.search(r"(\d+) lectures and (\d+) labs", plan)
    assert intro and intro.groups() == (str(lectures), str(labs)), "the plan's own intro differs"


def minute_mismatches(plan: str) -> list[str]:
    """One line per lecture whose table minutes differ from its listed sections' note minutes."""
    table, sections = plan_table(plan), plan_sections(plan)
    wrong = []
    for number, (kind, minutes) in table.items():
        if kind == "lab":
            if minutes != 90 or sections[number]:
                wrong.append(f"lab {number}: {minutes} min (a lab is the full 90)")
            continue
        total = 0
        for nn, listed in sections[number]:
            notes = note_minutes(nn)
            heading = _heading(notes, listed)
            if heading is None:
                wrong.append(f"session {number}: no notes for {nn} *{listed}*")
            else:
                total += notes[heading]
        if not sections[number] or total != minutes or minutes > 90:
            wrong.append(f"session {number}: table {minutes} min, notes {total} min")
    return wrong


def opening_mismatches(plan: str) -> list[str]:
    """One line per lecture that, with the opening minutes of the lessons it starts (the
    sub-blocks of their title slide's subslides), runs over 90 minutes; and one per section
    whose subslides take all of its minutes."""
    table, sections = plan_table(plan), plan_sections(plan)
    wrong, started = [], set()
    for number in sorted(table):
        kind, minutes = table[number]
        opening = 0
        for nn, _ in sections[number]:
            if kind == "lecture" and nn not in started:
                started.add(nn)
                opening += subslide_minutes(nn).get(None, 0)
        if kind == "lecture" and minutes + opening > 90:
            wrong.append(f"session {number}: {minutes} min of sections + {opening} of openings")
    for nn in sorted({nn for listed in sections.values() for nn, _ in listed}):
        own = note_minutes(nn)
        for heading, used in subslide_minutes(nn).items():
            if heading is not None and used >= own.get(heading, 0):
                wrong.append(f"{nn} *{heading}*: subslides {used} min of {own.get(heading)}")
    return wrong


def test_openings_and_subslides_fit_the_sessions():
    plan = PLAN.read_text(encoding="utf-8")
    assert opening_mismatches(plan) == []
    assert any(subslide_minutes(nn).get(None) for nn in ("03", "06", "17")), "no opening parsed"


def test_each_sessions_minutes_are_its_notes_minutes():
    plan = PLAN.read_text(encoding="utf-8")
    assert sum(len(s) for s in plan_sections(plan).values()) >= 60, "too few sections parsed"
    assert minute_mismatches(plan) == []


def test_the_minutes_check_catches_a_wrong_total():
    """A table two minutes off, or a section missing from the list, is reported."""
    plan = PLAN.read_text(encoding="utf-8")
    table = plan_table(plan)
    first = min(n for n, (kind, _) in table.items() if kind == "lecture")
    minutes = table[first][1]
    row = re.compile(rf"^(\| {first} \| Lecture \| .+ \| ){minutes} \|$", re.M)
    broken = row.sub(rf"\g<1>{minutes + 2} |", plan, count=1)
    assert f"session {first}: table {minutes + 2} min, notes {minutes} min" in (
        minute_mismatches(broken)
    )
    dropped = re.sub(r"; \*[^*]+\*$", "", plan, count=1, flags=re.M)
    assert dropped != plan and minute_mismatches(dropped)


BREAK_MIN = 10  # a lecture keeps a break of 10 minutes: at most 80 minutes of notes and openings


def break_mismatches(plan: str) -> list[str]:
    """One line per lecture whose sections and the openings of the lessons it starts leave less
    than ``BREAK_MIN`` minutes of its 90 for a break."""
    table, sections = plan_table(plan), plan_sections(plan)
    wrong, started = [], set()
    for number in sorted(table):
        kind, minutes = table[number]
        fresh = {nn for nn, _ in sections[number]} - started
        started |= fresh
        opening = sum(subslide_minutes(nn).get(None, 0) for nn in fresh)
        if kind == "lecture" and minutes + opening > 90 - BREAK_MIN:
            wrong.append(f"session {number}: {minutes} + {opening} min leave no break")
    return wrong


def test_every_lecture_leaves_a_break():
    plan = PLAN.read_text(encoding="utf-8")
    assert break_mismatches(plan) == []
    table = plan_table(plan)
    row = re.compile(r"^(\| 8 \| Lecture \| .+ \| )(\d+) \|$", re.M)
    longer = row.sub(lambda m: f"{m.group(1)}{90 - BREAK_MIN} |", plan, count=1)
    assert table[8][0] == "lecture" and "session 8" in " ".join(break_mismatches(longer))


# --- the short track ---------------------------------------------------------------------------

SHORT_MAX_MIN = 70  # a short lecture's sections: openings, a break and live runs fit beside them
_SHORT = re.compile(r"^### Short session (\d+) \((lecture|lab)\): .+$", re.M)
_SHORT_LINE = re.compile(r"^- (\d\d): (.+)$", re.M)
_SHORT_SECTION = re.compile(r"\*(.+?)\* \((\d+)\)(?:; |$)")


def short_track(plan: str) -> dict[int, tuple[str, str]]:
    """Short session number -> (kind, body) from the plan's ``### Short session N (kind): ...``."""
    starts = list(_SHORT.finditer(plan))
    end = plan.index("\n## Session 1 ")
    return {
        int(here.group(1)): (here.group(2), plan[here.end() : after.start() if after else end])
        for here, after in zip(starts, [*starts[1:], None], strict=True)
    }


def short_problems(plan: str) -> list[str]:
    """What is wrong with the short track: a listed section the notes lack or whose minutes
    differ, a lecture over ``SHORT_MAX_MIN``, a lecture without 4-5 questions or a lab without
    3-4 exercises."""
    wrong = []
    for number, (kind, body) in short_track(plan).items():
        if kind == "lab":
            count = len(re.findall(r"checker `check_\w+`", body))
            if not 3 <= count <= 4:
                wrong.append(f"short lab {number}: {count} exercises")
            continue
        listed = body.split("**Sections**", 1)[1].split("\n**", 1)[0]
        total = 0
        for nn, sections in _SHORT_LINE.findall(listed):
            notes = note_minutes(nn)
            for heading, minutes in _SHORT_SECTION.findall(sections):
                if notes.get(heading) != int(minutes):
                    wrong.append(f"short {number}: {nn} *{heading}* {minutes} min, notes differ")
                total += int(minutes)
        if not listed.strip() or total > SHORT_MAX_MIN:
            wrong.append(f"short lecture {number}: {total} min")
        asked = re.findall(r"^- \d\d \*.+?\*: .+\?$", body, re.M)
        if not 4 <= len(asked) <= 5:
            wrong.append(f"short lecture {number}: {len(asked)} questions")
    return wrong


def test_the_short_track_fits_six_sessions():
    plan = PLAN.read_text(encoding="utf-8")
    track = short_track(plan)
    assert sorted(track) == list(range(1, len(track) + 1)) and 5 <= len(track) <= 7
    assert {kind for kind, _ in track.values()} == {"lecture", "lab"}
    assert short_problems(plan) == []


def test_the_short_track_check_catches_a_wrong_section_and_a_long_lecture():
    plan = PLAN.read_text(encoding="utf-8")
    first = plan.index("### Short session 1 ")
    wrong = plan[:first] + plan[first:].replace(" (8)", " (9)", 1)
    assert any("notes differ" in line for line in short_problems(wrong))
    longer = plan[:first] + plan[first:].replace(
        " (8)", " (8); *Summary* (3); *Two sentences, same words* (4)", 1
    )
    assert any(line.startswith("short lecture 1: ") for line in short_problems(longer))
