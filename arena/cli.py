"""The ``arena`` command line (click)."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="animal-poker-arena")
def main() -> None:
    """Animal Poker arena: run bots, matches and tournaments, and rate the bots."""


@main.group()
def tournament() -> None:
    """Run tournaments described by YAML files."""


@tournament.command("run")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def tournament_run(file: str) -> None:
    """Run the tournament FILE and print its rating table."""
    click.echo("arena tournament run: not yet implemented (see issue 4)", err=True)
    raise SystemExit(2)
