"""What each command does, apart from its command line: a frozen request in, its outcomes handed to an emitter as they
are made, its exit code out. A click callback only fills the request; the emitter (``toolreplay.cli.emitter``)
renders each outcome through the one registry. A command here reads and analyses, and renders nothing."""
