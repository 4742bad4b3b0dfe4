# toolreplay as a container: docker run --rm -v "$PWD:/work" -w /work IMAGE check
# Builds with the classic builder: docker build -t toolreplay .
ARG PYTHON_VERSION=3.12

# Builder: wheels for toolreplay and every dependency, then a virtual environment from those wheels.
FROM python:${PYTHON_VERSION}-slim AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN python -m pip wheel --wheel-dir /wheels ".[anthropic,mcp]" \
    && python -m venv /opt/toolreplay \
    && /opt/toolreplay/bin/pip install --no-index --find-links /wheels "toolreplay[anthropic,mcp]" \
    && /opt/toolreplay/bin/pip uninstall --yes pip

# Runtime: the slim base and the environment, nothing else; no compilers, no wheels, a user without a shell.
# The version labels come last, so a new revision reuses every layer above them.
FROM python:${PYTHON_VERSION}-slim
RUN useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin toolreplay
COPY --from=builder /opt/toolreplay /opt/toolreplay
ENV PATH="/opt/toolreplay/bin:${PATH}" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["toolreplay"]
CMD ["--help"]
ARG VERSION=0.0.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="toolreplay" \
      org.opencontainers.image.description="Audit, seal and replay the tool calls of AI agents, and catch what a prompt or model change makes them do." \
      org.opencontainers.image.source="https://github.com/toolreplay/toolreplay" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
