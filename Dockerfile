# The bot's image: its production packages only (bot, core, storage: not bench/ or testkit/, the
# benchmarks and fake platforms), installed from uv.lock, the lock file scripts/setup.sh installs
# from too. Two stages: the first builds the virtual environment with uv, the second runs it as
# a user without privileges. The platform adapters read their tokens from the environment; with
# none set it opens the terminal console (run it with -it). docs/operating.md says more.

FROM python:3.11-slim AS build
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PYTHON_DOWNLOADS=never PIP_NO_CACHE_DIR=1
RUN pip install --no-cache-dir uv==0.13.10
WORKDIR /app
# The dependencies first, from the lock alone (a layer kept while only the code changes).
COPY pyproject.toml uv.lock ./
RUN uv sync --locked --no-install-project --no-editable
# Then the bot itself, installed (not editable) into the same environment.
COPY README.md ./
COPY bot bot
COPY core core
COPY storage storage
RUN uv sync --locked --no-editable

FROM python:3.11-slim
# The pictures' fonts (Noto) come with the Python packages in the lock; FriBiDi is the one system
# library: Pillow's raqm layout loads it, so Arabic is drawn joined and right to left. Not pinned
# to a version: the base image's Debian release says which one exists (a pin breaks the build at
# its next point release), and FriBiDi's interface has not changed in a decade.
# hadolint ignore=DL3008
RUN apt-get update && apt-get install -y --no-install-recommends libfribidi0 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home --uid 10001 --user-group boardroom
COPY --from=build /app/.venv /app/.venv
# In a container the worker's own interfaces are what the host (a published port, the load
# balancer, Prometheus) reaches: Slack's HTTP mode and the metrics port listen on every
# interface here, not loopback.
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    SLACK_HTTP_HOST=0.0.0.0 \
    BOARDROOM_METRICS_HOST=0.0.0.0 \
    BOARDROOM_METRICS_PORT=9464
USER 10001
WORKDIR /home/boardroom
EXPOSE 9464
# `boardroom health` asks this worker's own /healthz (on BOARDROOM_METRICS_PORT): 0 when it can
# serve players, 1 when not (its report on stderr). The console serves none: it reads unhealthy.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["boardroom", "health"]
ENTRYPOINT ["boardroom"]
