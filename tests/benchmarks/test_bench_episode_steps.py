"""benchmarks/episode_steps.py: a time per environment step for each executor, from the
episodes each played (no expected speed)."""
from benchmarks import episode_steps


def test_episode_steps_reports_both_executors(capsys):
    out = episode_steps.main(["--size", "tiny", "--warmup", "2", "--rounds", "2"])
    assert set(out) == {"expert", "janus"}
    assert all(len(times) == 2 and all(t > 0 for t in times) for times in out.values())
    printed = capsys.readouterr().out
    assert "us per environment step" in printed and "x expert" in printed
