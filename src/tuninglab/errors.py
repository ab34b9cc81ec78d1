"""Errors a user can act on: printed as one line, never as a traceback."""


class UserError(Exception):
    """Bad input or an unmet need; the message says what and where."""

    exit_code = 2


class Interrupted(UserError):
    """The run was stopped (Ctrl-C, SIGTERM); finished points are kept."""

    exit_code = 130
