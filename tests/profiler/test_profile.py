"""What the profiler records: branch outcomes, trip counts, callees, attributes, cases."""
import tensorflow as tf

from janus.profiler import Profile, profile_call
from janus.transform import convert


class Model:
    def __init__(self):
        self.state = tf.zeros([2])
        self.steps = 0


def helper(x):
    return x * 2.0


def step(model, xs):
    state = model.state
    for x in xs:
        state = state + helper(x)
    if tf.reduce_sum(state) > 0:
        model.steps += 1
    model.state = state
    return state


def test_profile_records_sites_and_attributes():
    profile = Profile()
    model = Model()
    converted = convert(step)
    for n in (2, 3):
        profile_call(converted, profile, (model, [tf.ones([2])] * n), {})
    assert profile.calls == 2
    assert len(profile.signatures) == 2
    loops = [r for r in profile.sites.values() if r.trip_counts]
    assert [sorted(r.trip_counts) for r in loops] == [[2, 3]]
    branches = [r for r in profile.sites.values() if r.tensor_tests]
    assert branches and branches[0].outcomes[True] == 2
    callees = {name for r in profile.sites.values() for name in r.callees}
    assert "helper" in callees
    assert profile.attributes[("Model", "state")]["reads"] == 2
    assert profile.attributes[("Model", "state")]["writes"] == 2
    assert profile.attributes[("Model", "steps")]["types"] == ["int"]
    assert "Model.state: read 2, written 2" in profile.summary()
