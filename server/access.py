"""Who may see a submission, written once: its owner, and staff (the admin and the course's
staff) whoever owns it.

Every way a submission leaves the server applies it: its route, its event stream, the
fast path for finished ones, and the leaderboard's links to submissions.
"""

from __future__ import annotations


def may_see(owner_id: int, viewer_id: int | None, staff: bool) -> bool:
    """Whether the viewer ``viewer_id`` (None: nobody logged in) may see a submission of
    ``owner_id``'s; ``staff``: the viewer is staff."""
    return staff or (viewer_id is not None and viewer_id == owner_id)
