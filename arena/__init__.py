"""The arena: bot processes, timed matches, replays, tournaments, ratings and the command line."""
