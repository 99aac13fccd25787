"""The static leaderboard site and replay viewer (tournament.md, 'Publishing').

Plain HTML, CSS and JavaScript that open from disk (file://), with no server and no network:
pages load their data with ``<script src>`` (browsers refuse fetch() of local files), and the
viewer loads each replay's data file only when its match is picked. Python writes the pages;
the static assets are in ``arena/site/assets/``.

- :func:`build_site` writes the site of a published tournament (called by :func:`arena.publish.publish`);
- :func:`write_replay_html` writes one self-contained viewer page for one replay (``arena replay --html``).
"""

from .build import build_site
from .replays import write_replay_html

__all__ = ["build_site", "write_replay_html"]
