"""Tournaments: the file (config), the schedule, and the results database (store)."""

from .config import (
    BotEntry, ClockConfig, ConfigError, LimitsConfig, RatingConfig, TournamentConfig, config_fingerprint,
    load_config, parse_config, parse_duration, resolve_command,
)
from .schedule import ScheduledMatch, build_schedule, group_seed, match_config
from .store import STATUSES, MatchResult, ScheduleMismatch, Store, StoreError

__all__ = [
    "BotEntry", "ClockConfig", "ConfigError", "LimitsConfig", "RatingConfig", "TournamentConfig",
    "config_fingerprint", "load_config", "parse_config", "parse_duration", "resolve_command",
    "ScheduledMatch", "build_schedule", "group_seed", "match_config",
    "STATUSES", "MatchResult", "ScheduleMismatch", "Store", "StoreError",
]
