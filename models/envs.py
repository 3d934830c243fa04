"""A CartPole environment in numpy (the classic Barto-Sutton-Anderson dynamics)."""
from __future__ import annotations

import math

import numpy as np


class CartPole:
    """Balance a pole on a cart; reward 1 per step; episode ends when the pole
    falls past 12 degrees, the cart leaves [-2.4, 2.4], or after ``max_steps``."""

    gravity, mass_cart, mass_pole, half_length = 9.8, 1.0, 0.1, 0.5
    force_mag, tau = 10.0, 0.02
    theta_limit, x_limit = 12 * 2 * math.pi / 360, 2.4
    obs_size, n_actions = 4, 2

    def __init__(self, seed: int = 0, max_steps: int = 500):
        self.rng = np.random.default_rng(seed)
        self.max_steps = max_steps
        self.state = np.zeros(4)
        self.steps = 0

    def reset(self) -> np.ndarray:
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.astype(np.float32)

    def step(self, action: int) -> tuple[np.ndarray, float, bool]:
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        cos, sin = math.cos(theta), math.sin(theta)
        total_mass = self.mass_cart + self.mass_pole
        pole_ml = self.mass_pole * self.half_length
        temp = (force + pole_ml * theta_dot ** 2 * sin) / total_mass
        theta_acc = (self.gravity * sin - cos * temp) / (
            self.half_length * (4.0 / 3.0 - self.mass_pole * cos ** 2 / total_mass))
        x_acc = temp - pole_ml * theta_acc * cos / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * x_acc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * theta_acc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.steps += 1
        done = (abs(x) > self.x_limit or abs(theta) > self.theta_limit or self.steps >= self.max_steps)
        return self.state.astype(np.float32), 1.0, bool(done)


class Walker:
    """A 1-D walker pushed left or right: a numpy state `[x, v]` and a Python step
    counter on the heap; done past the wall `limit` or after `max_steps`."""

    def __init__(self, limit: float = 1.0, max_steps: int = 40, dt: float = 0.1):
        self.state = np.zeros(2)
        self.steps = 0
        self.limit, self.max_steps, self.dt = limit, max_steps, dt

    def step(self, push) -> tuple[np.ndarray, float, bool]:
        x, v = self.state
        force = 0.5 if push > 0 else -0.3
        v = v + self.dt * force
        x = x + self.dt * v
        self.state = np.array([x, v])
        self.steps += 1
        done = abs(x) > self.limit or self.steps >= self.max_steps
        return self.state.astype(np.float32), 1.0, bool(done)
