"""The greedy attention decoder (`.numpy()` per argmax, EOS checked in Python): expert and
janus equal eager, including the decoded tokens kept in the state."""
import numpy as np

from models import decoder


def host_state(state):
    return list(state.last_decoded), state.exact_matches


def test_expert_matches_eager_with_the_same_decodes(expert_matches_eager):
    wl = decoder.workload("tiny")
    _, eager, expert = expert_matches_eager(wl, n_steps=4, atol=1e-5)
    assert host_state(eager) == host_state(expert)


def test_expert_decode_stops_on_end_like_eager():
    """Bias the output towards END after a few steps of training: both stop early (and
    identically); with END suppressed both run to the maximum length."""
    import tensorflow as tf

    wl = decoder.workload("tiny")
    for bias_end, want_len in ((50.0, 0), (-50.0, None)):
        decoded = []
        for make in (lambda s: (lambda *b: wl.step(s, *b)), wl.expert):
            state = wl.make_state()
            bias = np.zeros(state.decoder.b_out.shape, np.float32)
            bias[decoder.END] = bias_end
            state.decoder.b_out.assign(bias)
            run = make(state)
            for batch in wl.batches(2):
                run(*batch)
            decoded.append(list(state.last_decoded))
        assert decoded[0] == decoded[1]
        max_len = wl.batches(1)[0][1].shape[1]
        assert len(decoded[0]) == (max_len if want_len is None else want_len)


def test_reverse_task_data():
    src, tgt = decoder.reverse_task(np.random.default_rng(0), 8, 10, 2, 5)
    for s, t in zip(src, tgt):
        words = s[s != 0]
        assert list(t[1:len(words) + 1]) == list(words[::-1])
        assert t[0] == decoder.START and t[len(words) + 1] == decoder.END


def test_janus_matches_eager(janus_matches_eager):
    janus_matches_eager(decoder.workload("tiny"), n_steps=5, host_state=host_state)
