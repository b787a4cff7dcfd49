"""Who sits where: the lobby and a game's life (``lobby``), ``leave`` and the host's edits
(``roster``), teams (``teams``) and join requests and absorbed seats in play (``seating``)."""
