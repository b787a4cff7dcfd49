"""Settings read from the environment (and an optional ``.env`` file) with pydantic-settings."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings"]


class Settings(BaseSettings):
    """Every setting the bot reads; the README lists them with their defaults."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    redis_url: str | None = Field(default=None, alias="REDIS_URL")
    """Redis to keep games in; unset or empty means the embedded in-process store."""
    redis_cluster: bool = Field(default=False, alias="REDIS_CLUSTER")
    """REDIS_URL names a node of a Redis Cluster (any one: the others are discovered from it)."""
    redis_timeout_seconds: float = Field(default=2.0, gt=0, alias="BOARDROOM_REDIS_TIMEOUT_SECONDS")
    """The longest one call to Redis may take, every retry and reconnect included, before the
    player reads that storage is unavailable: a hung Redis (one that accepts connections and
    answers nothing) must not hold an answer. A command makes at most two such waits (a save,
    then reading it back), so it is answered within twice this."""
    redis_pool_size: int = Field(default=64, ge=1, alias="BOARDROOM_REDIS_POOL_SIZE")
    """The most connections one worker opens to Redis (one server; a cluster's client keeps
    its own per node): a call that finds them all lent waits for one, up to three quarters of
    the Redis timeout, then the player reads that the store is busy."""
    max_inflight: int = Field(default=32, ge=1, alias="BOARDROOM_MAX_INFLIGHT")
    """Requests one worker works on at once; more wait their turn (acknowledged already).
    Below the pool size, so that a burst waits here, in order, and not for a connection."""
    metrics_port: int | None = Field(default=None, ge=0, le=65535, alias="BOARDROOM_METRICS_PORT")
    """Where every runtime serves `GET /healthz` and `GET /metrics` (Prometheus); unset: not
    served (Slack's HTTP mode still answers `/healthz` on its own port)."""
    metrics_host: str = Field(default="127.0.0.1", alias="BOARDROOM_METRICS_HOST")
    """The address of the metrics port: this machine by default; `0.0.0.0` in a container."""
    log_format: Literal["text", "json"] = Field(default="text", alias="BOARDROOM_LOG_FORMAT")
    """`json`: one JSON object a log line, with the game, channel and delivery id of the
    request it was written for (never what a player typed)."""
    health_timeout_seconds: float = Field(
        default=1.0, gt=0, alias="BOARDROOM_HEALTH_TIMEOUT_SECONDS"
    )
    """How long `GET /healthz` waits for Redis (never longer than the Redis timeout), so the
    health check answers within a load balancer's own timeout even when Redis hangs."""
    game_ttl_hours: float = Field(default=72, alias="BOARDROOM_GAME_TTL_HOURS")
    """A game nobody touches for this long is deleted (abandoned games expire)."""
    paused_ttl_days: float = Field(default=30, gt=0, alias="BOARDROOM_PAUSED_TTL_DAYS")
    """A paused game is kept this long after it was paused (then deleted, as the board says)."""
    finished_ttl_hours: float = Field(default=24, alias="BOARDROOM_FINISHED_TTL_HOURS")
    """A finished game stays readable (status, log) this long."""
    history_days: float = Field(default=90, gt=0, alias="BOARDROOM_HISTORY_DAYS")
    """How long a community keeps a finished game's result and replay, and a person's name and
    ratings after their last game (sooner: the person's `/boardroom forget-me`)."""
    limit_lobbies: int = Field(default=10, ge=0, alias="BOARDROOM_LIMIT_LOBBIES")
    """Lobbies one person may open (`start`, Rematch) in ten minutes (0: no limit)."""
    limit_shares: int = Field(default=3, ge=0, alias="BOARDROOM_LIMIT_SHARES")
    """Leaderboards one person may show to a channel in ten minutes (0: no limit)."""
    limit_uploads: int = Field(default=5, ge=0, alias="BOARDROOM_LIMIT_UPLOADS")
    """Whole rules pages (`rules all`, a file) one person may have in ten minutes (0: no
    limit)."""
    idle_end_minutes: float = Field(default=30, alias="BOARDROOM_IDLE_END_MINUTES")
    """After this long without an action anyone may end the game, not only the host."""
    dedupe_ttl_seconds: int = Field(default=600, alias="BOARDROOM_DEDUPE_TTL_SECONDS")
    """How long a platform delivery id is remembered, so a retried delivery applies once."""
    nudge_seconds: float = Field(default=30, ge=0, alias="BOARDROOM_NUDGE_SECONDS")
    """How long a turn waits for its player before they are pinged ("Your move"): a player
    who moves first is not pinged at all (0: ping as the turn starts). Never later than
    halfway to the turn's deadline."""
    pictures: bool = Field(default=True, alias="BOARDROOM_PICTURES")
    """Whether games are drawn as pictures (the end-of-game money chart on the final card);
    false turns them off for the whole deployment (the text stays)."""
    deadline_poll_seconds: float = Field(default=0.5, alias="BOARDROOM_DEADLINE_POLL_SECONDS")
    """How often a worker looks for deadlines that have passed."""
    deadline_lease_seconds: float = Field(
        default=5.0, gt=0, alias="BOARDROOM_DEADLINE_LEASE_SECONDS"
    )
    """How long a worker holds a deadline it fires; if it dies, another fires it after this."""
    log_level: str = Field(default="INFO", alias="BOARDROOM_LOG_LEVEL")
    connect_timeout_seconds: float = Field(
        default=30, gt=0, alias="BOARDROOM_CONNECT_TIMEOUT_SECONDS"
    )
    """How long `boardroom discord` / `boardroom slack` wait for the platform to answer each
    step of starting (logging in, opening the gateway or socket) before they give up with a
    sentence and exit 1: a network that swallows packets must not leave the bot waiting."""

    # Discord (bot/adapters/discord)
    discord_token: str | None = Field(default=None, alias="DISCORD_TOKEN")
    """The bot token from the Discord developer portal; set, `boardroom` runs on Discord."""
    discord_guild_ids: str = Field(default="", alias="DISCORD_GUILD_IDS")
    """Comma-separated server ids whose slash commands sync instantly (development)."""
    discord_api_url: str | None = Field(default=None, alias="DISCORD_API_URL")
    """REST base URL, e.g. a shared rate-limit proxy (default: Discord's own API v10)."""
    discord_gateway_url: str | None = Field(default=None, alias="DISCORD_GATEWAY_URL")
    """Gateway websocket URL, e.g. a gateway proxy (default: the one Discord names)."""

    # Slack (bot/adapters/slack)
    slack_bot_token: str | None = Field(default=None, alias="SLACK_BOT_TOKEN")
    """The xoxb- bot token; set, `boardroom` runs on Slack."""
    slack_app_token: str | None = Field(default=None, alias="SLACK_APP_TOKEN")
    """The xapp- app-level token for Socket Mode (the default mode)."""
    slack_signing_secret: str | None = Field(default=None, alias="SLACK_SIGNING_SECRET")
    """Verifies HTTP-mode requests (`boardroom slack --http`)."""
    slack_api_url: str | None = Field(default=None, alias="SLACK_API_URL")
    """Web API base URL, e.g. a proxy or a government Slack host (default: Slack's own)."""
    slack_http_host: str = Field(default="127.0.0.1", alias="SLACK_HTTP_HOST")
    """The address `boardroom slack --http` listens on: loopback by default, so that nothing
    but this machine (a reverse proxy on it) reaches the worker; `0.0.0.0` (every interface) in
    a container or behind a load balancer. `--host` overrides it."""

    @property
    def guild_ids(self) -> list[int]:
        """DISCORD_GUILD_IDS as numbers."""
        return [int(part) for part in self.discord_guild_ids.replace(" ", "").split(",") if part]
