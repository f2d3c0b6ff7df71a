"""The command line: parse, build, stream, print. No agent logic lives here."""
