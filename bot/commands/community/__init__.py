"""What a community remembers: ``/boardroom`` (``boardroom``), results written once and
ratings (``results``), home pages (``home``), the final card (``finalcard``), ``forget-me``
(``forget``) and the chores of the deadline loop (``upkeep``)."""
