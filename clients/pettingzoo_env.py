"""fagin's games as PettingZoo AEC environments with action masks.

``env("kids_of_london", players=4)`` is a PettingZoo ``AECEnv`` (wrapped in
PettingZoo's order-enforcing wrapper; ``raw_env`` is the bare one) for any game
of :data:`fagin.engines.GAMES`; keyword arguments other than ``players`` and
``render_mode`` are the game's options (``GameSpec.options``).

* **Agents** are ``player_0`` .. ``player_<n-1>``, one a seat. The agent to act
  is the engine's player to act; chance events are drawn by the environment
  (from ``reset(seed=...)``), never shown as an agent.
* **Simultaneous moves** (Kids of London, Goofspiel) are taken in turn, as the
  engine does: a seat's view does not show the choices other seats made
  earlier in the same simultaneous step, so each seat chooses exactly as if
  all chose at once (see :mod:`fagin.clients.openspiel_games`).
* **Observations** are dicts ``{"observation": uint8[max_observation_bytes],
  "action_mask": int8[num_distinct_actions]}``. ``observation`` holds the seat's
  view of the table (``State.view(seat)``: everything it cannot see removed)
  as canonical JSON in UTF-8, zero-padded; :func:`decode_observation` gives the
  view back as a dict. The games' views have no fixed-size numeric form common
  to all games, and PettingZoo's checks want a fixed-size numeric array, so the
  view travels as its text, losslessly. ``action_mask`` marks the seat's legal
  actions (all zero when it is not the seat to act).
* **Rewards** are the game's returns, given when it ends (0 before); a game
  ends by termination, never truncation.

PettingZoo is imported only by this module, so the server does not need it
(``pip install pettingzoo``, or ``fagin[test]``).
"""
from __future__ import annotations

import json

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError("fagin.clients.pettingzoo_env needs PettingZoo: pip install pettingzoo") from error

from fagin.engines import load_game

__all__ = ["FaginAECEnv", "decode_observation", "env", "raw_env"]

#: Room for a view's JSON in an observation: about six times the largest view met in
#: random games of the current games (London's, four seats: 11.3 kB; Gangs of Kyoto's
#: five seats: 6.8 kB).
MAX_OBSERVATION_BYTES = 1 << 16


def decode_observation(observation) -> dict:
    """The seat's view (a dict shaped like the game's state message) from an
    observation, or from its ``"observation"`` array alone."""
    if isinstance(observation, dict):
        observation = observation["observation"]
    return json.loads(bytes(np.asarray(observation, dtype=np.uint8)).rstrip(b"\0").decode("utf-8"))


def env(game_id: str, players: int | None = None, render_mode: str | None = None, **options):
    """The environment for ``game_id``, in PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(raw_env(game_id, players, render_mode, **options))


class FaginAECEnv(AECEnv):
    """One of fagin's games as an AEC environment (see the module's docstring)."""

    metadata = {"render_modes": ["ansi", "human"], "name": "fagin", "is_parallelizable": False}

    def __init__(self, game_id: str, players: int | None = None, render_mode: str | None = None,
                 max_observation_bytes: int = MAX_OBSERVATION_BYTES, **options):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode: expected one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        self.game = load_game(game_id)  # UnknownGameError (a KeyError) naming the known games
        spec = self.game.spec
        self.players = spec.check_players(spec.min_players if players is None else players)
        self.options = spec.parse_options(options)
        self.render_mode = render_mode
        self.max_observation_bytes = max_observation_bytes
        self.metadata = {**self.metadata, "name": f"fagin_{game_id}_v0"}
        self.possible_agents = [f"player_{seat}" for seat in range(self.players)]
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        n = self.game.num_distinct_actions
        # One space object an agent, always the same (PettingZoo's api_test checks it), so
        # that seeding one agent's space leaves the others' alone.
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0, 255, (max_observation_bytes,), np.uint8),
            "action_mask": spaces.Box(0, 1, (n,), np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        #: The engine's state of the game in play (None before reset and after close).
        self.game_state = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game; ``seed`` fixes every chance event of it. ``options`` is accepted
        for Gymnasium's signature but unused: the game's options are fixed when the
        environment is made."""
        self._rng = np.random.default_rng(seed)
        self.game_state = self.game.new_initial_state(self.players, **self.options)
        self._resolve_chance()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._after_move()

    def _resolve_chance(self):
        while self.game_state.is_chance_node():
            self.game_state.apply(self.game_state.sample_chance(int(self._rng.integers(0, 2**63))))

    def _after_move(self):
        if self.game_state.is_terminal():
            for agent, value in zip(self.possible_agents, self.game_state.returns()):
                self.rewards[agent] = float(value)
                self.terminations[agent] = True
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = self.possible_agents[self.game_state.current_player()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        """Plays ``action`` (an action id, one the mask allows) for the agent to act;
        ``None`` for an agent whose game has ended. An illegal action raises
        :class:`fagin.engines.IllegalActionError` and changes nothing."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.game_state.apply(int(action))
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._resolve_chance()
        self._after_move()

    def observe(self, agent) -> dict:
        seat = self._seat[agent]
        text = json.dumps(self.game_state.view(seat), sort_keys=True, separators=(",", ":"),
                          ensure_ascii=True).encode("ascii")
        if len(text) > self.max_observation_bytes:
            raise ValueError(f"{self.game.id}: the view of seat {seat} takes {len(text)} bytes, more than "
                             f"max_observation_bytes={self.max_observation_bytes}; make the "
                             f"environment with a larger max_observation_bytes")
        observation = np.zeros(self.max_observation_bytes, np.uint8)
        observation[:len(text)] = np.frombuffer(text, np.uint8)
        mask = np.zeros(self.game.num_distinct_actions, np.int8)
        if not self.game_state.is_terminal() and self.game_state.current_player() == seat:
            mask[self.game_state.legal_actions()] = 1
        return {"observation": observation, "action_mask": mask}

    def render(self) -> str | None:
        """The whole table as text (all of it: rendering is for the people running
        the environment, not for the seats): returned in ``"ansi"`` mode, printed
        in ``"human"`` mode."""
        if self.render_mode is None:
            return None
        text = self.game_state.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the game lives in memory only."""
        self.game_state = None


raw_env = FaginAECEnv
