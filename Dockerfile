# The duplicate server's image: `duplicate serve` as an unprivileged user. docker-compose.yml
# runs several of it behind HAProxy; README "Running in production". No secret is in the
# image: the Redis password and the organiser key come from the environment at run time.

FROM python:3.11-slim AS build
# A compiler for any dependency without a wheel for this platform (endplay's solver on arm64).
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY bridge bridge
COPY protocol protocol
COPY server server
COPY clients clients
COPY robots robots
COPY duplicate duplicate
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels duplicate-bridge \
    && rm -rf /wheels \
    && useradd --create-home --uid 10001 --user-group duplicate
USER duplicate
WORKDIR /home/duplicate
EXPOSE 8765
ENTRYPOINT ["duplicate"]
CMD ["serve", "--host", "0.0.0.0"]
