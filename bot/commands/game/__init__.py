"""A game being played: typed moves, presses and timeouts (``moves``), what an action shows
(``play``), the commands that change nothing (``readers``) and the action log (``actionlog``)."""
