# The bot, installed as the README's install steps do. The platform adapters read their tokens
# from the environment; with none set it opens the terminal console (run it with -it).
FROM python:3.11-slim
# FriBiDi: Pillow's raqm layout loads it, so the pictures draw Arabic joined and right to left
# (the fonts themselves come with the Python packages).
RUN apt-get update && apt-get install -y --no-install-recommends libfribidi0 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY pyproject.toml README.md ./
COPY core core
COPY storage storage
COPY bot bot
# `boardroom bench` runs its drivers and fake platforms from these (the bot never imports them).
COPY bench bench
COPY testkit testkit
RUN pip install --no-cache-dir .
RUN useradd --create-home boardroom
# In a container the worker's own interface is what the host (a published port, the load
# balancer) reaches: `boardroom slack --http` listens on every interface here, not loopback.
ENV SLACK_HTTP_HOST=0.0.0.0
USER boardroom
ENTRYPOINT ["boardroom"]
