"""The command line: one module per command group, flag definitions and interrupt handling. Imports every layer; nothing imports it."""
