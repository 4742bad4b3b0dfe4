# toolreplay as a container: docker run --rm -v "$PWD:/work" -w /work IMAGE check
# Builds with the classic builder: docker build -t toolreplay .
ARG PYTHON_VERSION=3.12

# Requirements: the dependency lists read from pyproject.toml (the runtime list plus the extras in EXTRAS) and the
# build system's list, each written to a file. Later stages copy only these files, and a COPY is cached by content,
# so an edit to pyproject.toml that leaves the dependency lists alone rebuilds no wheel.
FROM python:${PYTHON_VERSION}-slim AS requirements
ARG EXTRAS=anthropic,mcp
WORKDIR /requirements
COPY pyproject.toml /tmp/pyproject.toml
RUN python -c "import pathlib, tomllib; \
project = tomllib.loads(pathlib.Path('/tmp/pyproject.toml').read_text(encoding='utf-8')); \
extras = project['project'].get('optional-dependencies', {}); \
runtime = project['project'].get('dependencies', []) + [d for e in '${EXTRAS}'.split(',') if e for d in extras[e]]; \
pathlib.Path('runtime.txt').write_text(''.join(d + '\n' for d in runtime), encoding='utf-8'); \
pathlib.Path('build.txt').write_text(''.join(d + '\n' for d in project['build-system']['requires']), encoding='utf-8')"

# Builder: a virtual environment without pip or setuptools, filled by the builder's own pip (pip --python).
# The third-party dependencies go in first, from the requirements files alone, so a change under src/ reuses them;
# then toolreplay itself, as a wheel built without isolation from the build requirements installed beside them.
FROM python:${PYTHON_VERSION}-slim AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONDONTWRITEBYTECODE=1
COPY --from=requirements /requirements/ /requirements/
RUN python -m venv --without-pip /opt/toolreplay \
    && python -m pip install --requirement /requirements/build.txt \
    && python -m pip --python /opt/toolreplay/bin/python install --requirement /requirements/runtime.txt
WORKDIR /src
# .dockerignore lets in only pyproject.toml, README.md, LICENSE and src/: one step copies them all.
COPY . ./
RUN python -m pip wheel --no-deps --no-build-isolation --wheel-dir /wheels . \
    && python -m pip --python /opt/toolreplay/bin/python install --no-deps --no-index /wheels/toolreplay-*.whl

# Runtime: the slim base and the environment, nothing else; no compilers, no wheels, no pip or setuptools in the
# environment, a user without a shell. The environment keeps the bytecode pip compiled: the user cannot write it,
# so without it every run would compile its imports again.
# Everything that does not change with the sources comes first, so a new revision rebuilds only its label and the
# copy of the environment (each step of a build copies the whole file system on engines without copy-on-write
# storage, so the steps after the last change are what a build costs).
FROM python:${PYTHON_VERSION}-slim
RUN useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin toolreplay
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
COPY --from=builder /opt/toolreplay /opt/toolreplay
