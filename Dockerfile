# toolreplay as a container: docker run --rm -v "$PWD:/work" -w /work IMAGE check
# Builds with the classic builder: docker build -t toolreplay .
#
# Each instruction is a step, and on an engine without copy-on-write storage each step copies the whole file system
# of the image so far, whatever the instruction does (about 13 s of the engine's CPU a step, measured on vfs): one
# ARG names several arguments, one RUN does each part's work, and nothing is set twice.
ARG PYTHON_VERSION=3.12

# Builder: a virtual environment without pip or setuptools, filled by the builder's own pip (pip --python).
# The third-party dependencies go in first, from pyproject.toml alone (its runtime list plus the extras in EXTRAS),
# so a change under src/ reuses them; then toolreplay itself, as a wheel built without isolation from the build
# requirements installed beside them. Bytecode is kept for what runs import (toolreplay whole; of the SDKs, the
# modules their clients load, found by loading them), not for every module of the SDKs' type trees: the rest is
# compiled in memory if it is ever imported. The shared objects some wheels ship with their symbols (PyYAML's,
# cryptography's) are stripped. So the image stays within its size budget. The ARGs are the environment of the RUNs and are not kept in any image.
FROM python:${PYTHON_VERSION}-slim AS builder
ARG EXTRAS=anthropic,mcp,openai \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONDONTWRITEBYTECODE=1
COPY pyproject.toml /src/pyproject.toml
# Debian's current binutils, unpinned, in the builder only (its strip): nothing of it reaches the image.
# hadolint ignore=DL3008
RUN python -c "import os, pathlib, tomllib; \
project = tomllib.loads(pathlib.Path('/src/pyproject.toml').read_text(encoding='utf-8')); \
extras = project['project'].get('optional-dependencies', {}); \
runtime = project['project'].get('dependencies', []) + [d for e in os.environ['EXTRAS'].split(',') if e for d in extras[e]]; \
pathlib.Path('/tmp/runtime.txt').write_text(''.join(d + '\n' for d in runtime), encoding='utf-8'); \
pathlib.Path('/tmp/build.txt').write_text(''.join(d + '\n' for d in project['build-system']['requires']), encoding='utf-8')" \
    && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends binutils >/dev/null \
    && python -m venv --without-pip /opt/toolreplay \
    && python -m pip install --no-cache-dir --requirement /tmp/build.txt \
    && python -m pip --python /opt/toolreplay/bin/python install --no-cache-dir --no-compile --requirement /tmp/runtime.txt \
    && env -u PYTHONDONTWRITEBYTECODE /opt/toolreplay/bin/python -c "import anthropic, openai, yaml, click, jinja2, tomli_w; \
import mcp.client.session, mcp.client.stdio, mcp.client.streamable_http, mcp.server, mcp.server.stdio; \
import anthropic.lib.streaming._messages, openai.types.chat, openai.types.responses, openai.lib.streaming.chat; \
a = anthropic.Anthropic(api_key='k'); a.messages.batches; a.beta.messages; \
anthropic.AnthropicBedrock(aws_region='us-east-1', api_key='k').messages; \
anthropic.AnthropicVertex(region='us-east5', project_id='p', access_token='t').messages; \
o = openai.OpenAI(api_key='k'); o.chat.completions; o.responses; o.batches; o.files" \
    && find /opt/toolreplay -name '*.so' -exec strip --strip-unneeded {} +
# .dockerignore lets in only pyproject.toml, README.md, LICENSE and src/: one step copies them all.
COPY . /src/
RUN python -m pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /wheels /src \
    && python -m pip --python /opt/toolreplay/bin/python install --no-cache-dir --no-deps --no-index /wheels/toolreplay-*.whl \
    && /opt/toolreplay/bin/python -m compileall -q -j 0 "$(/opt/toolreplay/bin/python -c 'import toolreplay, os; print(os.path.dirname(toolreplay.__file__))')"

# Runtime: the slim base and the environment, and OpenSSH's client (ssh-keygen signs and verifies sealed files'
# signatures, as on any machine); no compilers, no wheels, no pip or setuptools in the environment, a user without
# a shell. The environment keeps the bytecode pip compiled: the user cannot write it, so without it every run would
# compile its imports again. What never changes comes first, so a new revision rebuilds only the copy of the
# environment and its label.
FROM python:${PYTHON_VERSION}-slim
# Debian's current openssh-client, unpinned: a pinned version leaves the mirror with its next security update.
# hadolint ignore=DL3008
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-client >/dev/null \
    && apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
    && useradd --system --uid 10001 --user-group --no-create-home --shell /usr/sbin/nologin toolreplay
ENV PATH="/opt/toolreplay/bin:${PATH}" \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
USER 10001:10001
WORKDIR /work
ENTRYPOINT ["toolreplay"]
CMD ["--help"]
COPY --from=builder /opt/toolreplay /opt/toolreplay
ARG VERSION=0.0.0 REVISION=unknown
LABEL org.opencontainers.image.title="toolreplay" \
      org.opencontainers.image.description="Audit, seal and replay the tool calls of AI agents, and catch what a prompt or model change makes them do." \
      org.opencontainers.image.source="https://github.com/toolreplay/toolreplay" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
