"""A module of the program's that a training step reads settings from (`config.LR`)."""
LR = 0.1


class Model:
    scale = 2.0


def scaled():
    return LR * 10.0
