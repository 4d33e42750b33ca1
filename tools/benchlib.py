"""What the bench scripts share (tools/bench, tools/bench-builds, tools/bench-place): the watch's
question for a rules file, as lookd itself makes it (`lookd check --json`), and the report's numbers."""
import json
import statistics
import subprocess


def watch_prompt(lookd, rules):
    """The numbered question each frame of a watch with `rules` gets."""
    out = subprocess.run([lookd, "check", rules, "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["prompt"]


def median(values):
    return statistics.median(values) if values else float("nan")
